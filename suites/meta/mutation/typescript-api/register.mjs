// Loaded into every Stryker process (`NODE_OPTIONS=--import typescript-api/register`, see the
// `mutation` script): Stryker imports `typescript` and needs the classic compiler API, which
// TypeScript 7 (the project's compiler) no longer ships. Stryker's `typescript` imports resolve to
// this package's TypeScript 6 instead; everything else keeps resolving as usual.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
