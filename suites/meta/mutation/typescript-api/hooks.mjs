// Module resolution hook (see register.mjs): `typescript` imported by Stryker (its core rewrites
// tsconfig files, its checker compiles) resolves from this package, where npm installed TypeScript 6.
const STRYKER = '/node_modules/@stryker-mutator/';

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'typescript' && context.parentURL?.includes(STRYKER)) return nextResolve(specifier, { ...context, parentURL: import.meta.url });
  return nextResolve(specifier, context);
}
