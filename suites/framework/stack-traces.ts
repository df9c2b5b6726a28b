/**
 * vitest 4.1's module cache hands vite's stack-trace hook a module's code as bytes, and the hook
 * then throws ("code.charCodeAt is not a function") wherever a stack is formatted in a process that
 * loaded cached modules: the main process of a run, where the global setup starts the embedded fake
 * and the CLI prints what went wrong. An error formatted there became an internal error of the
 * harness, and the one it was formatting was lost. Wrapped, a stack that cannot be source-mapped is
 * printed as V8 gives it.
 */
export function tolerateStackTraceHook(): void {
  const hook = Error.prepareStackTrace;
  if (hook === undefined || (hook as { tolerant?: true }).tolerant) return;
  const tolerant = (error: Error, frames: NodeJS.CallSite[]): unknown => {
    try {
      return hook(error, frames);
    } catch {
      return `${error.name || 'Error'}: ${error.message || ''}${frames.map((frame) => `\n    at ${String(frame)}`).join('')}`;
    }
  };
  Error.prepareStackTrace = Object.assign(tolerant, { tolerant: true as const });
}
