import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const script = fileURLToPath(new URL('./timeout-after-gc.script.ts', import.meta.url));

it('a 1 s request timeout still fires after garbage collections (nodejs/node#57736)', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--import', 'tsx', script], { timeout: 30_000 });
  const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { kind: string; elapsedMs: number };
  // A lost timeout waits for the server to close the connection at 20 s, which ends the request as a
  // reset, not a timeout: the kind alone tells them apart, with no wall-clock bound on a busy machine.
  expect(result.kind).toBe('timeout');
  expect(result.elapsedMs).toBeGreaterThanOrEqual(990);
}, 40_000);
