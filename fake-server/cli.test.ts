/** The CLI as a process: the request log, the ready line, and a state file kept across a restart. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = new URL('./cli.ts', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'besi-fake-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Starts the CLI; resolves with its ready line, a way to call it, and a stop that returns the rest of its output. */
async function start(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--port', '0', '--ready-json', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (output += chunk));
  const ready = await new Promise<{ url: string; keys: { key: string }[] }>((resolve, reject) => {
    child.stdout.on('data', () => output.includes('\n') && resolve(JSON.parse(output.slice(0, output.indexOf('\n')))));
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
  const call = async (operation: string, body: unknown) =>
    (await fetch(`${ready.url}/v1/${operation}`, { method: 'POST', headers: { authorization: `Bearer ${ready.keys[0]!.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).status;
  const stop = async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    return { code: await exited, output };
  };
  return { ready, call, stop };
}

describe('besi-fake', () => {
  it('logs one line per request, and keeps --state across a restart', async () => {
    const state = join(work, 'state.json');
    const first = await start(['--log', '--state', state]);
    expect(await first.call('customers.get_or_create', { customer_id: 'kept' })).toBe(200);
    const stopped = await first.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.output).toMatch(/^POST \/v1\/customers\.get_or_create 200 [\d.]+ms$/m);
    expect(existsSync(state)).toBe(true);
    expect(JSON.parse(readFileSync(state, 'utf8'))).toMatchObject({ format: 'besi-fake-state', tenants: [{ org: 'org_fake', env: 'sandbox' }] });

    const second = await start(['--state', state]);
    expect(await second.call('customers.get', { customer_id: 'kept' })).toBe(200);
    expect((await second.stop()).code).toBe(0);
  }, 60_000);
});
