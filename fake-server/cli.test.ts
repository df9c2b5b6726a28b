/**
 * The CLI as a process: the request log, a state file kept across a restart, one-line refusals of
 * malformed options, and `npm run fake` stopped by SIGTERM and SIGINT sent to npm.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeProcess, startFake, stopFake } from './cli/testing.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const CLI = new URL('./cli.ts', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'besi-fake-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Starts the CLI from its source; resolves with its ready line and a way to call it. */
async function start(args: string[]) {
  const fake = await startFake(process.execPath, ['--import', 'tsx', CLI, '--port', '0', '--ready-json', ...args], { cwd: ROOT });
  const call = async (operation: string, body: unknown) =>
    (await fetch(`${fake.ready.url}/v1/${operation}`, { method: 'POST', headers: { authorization: `Bearer ${fake.ready.keys[0]!.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).status;
  return { ...fake, call };
}

async function stopped(fake: FakeProcess) {
  await stopFake(fake, 'SIGTERM');
  return { code: (await fake.exited).code, output: fake.output() };
}

describe('besi-fake', () => {
  it('logs one line per request, and keeps --state across a restart', async () => {
    const state = join(work, 'state.json');
    const first = await start(['--log', '--state', state]);
    expect(await first.call('customers.get_or_create', { customer_id: 'kept' })).toBe(200);
    const { code, output } = await stopped(first);
    expect(code).toBe(0);
    expect(output).toMatch(/^POST \/v1\/customers\.get_or_create 200 [\d.]+ms$/m);
    expect(existsSync(state)).toBe(true);
    expect(JSON.parse(readFileSync(state, 'utf8'))).toMatchObject({ format: 'besi-fake-state', tenants: [{ org: 'org_fake', env: 'sandbox' }] });

    const second = await start(['--state', state]);
    expect(await second.call('customers.get', { customer_id: 'kept' })).toBe(200);
    expect((await stopped(second)).code).toBe(0);
  }, 60_000);

  // What each malformed option's message says is options.test.ts's (parseCliOptions, in-process); here,
  // that a refusal reaches the shell as one line and exit code 2, by each way it is raised: parsing,
  // the fault catalogue, a seed file that cannot be read, one whose validation spans several lines.
  it('refuses malformed options with one line on stderr naming them, and exit code 2', async () => {
    const badSeed = join(work, 'bad-seed.json');
    writeFileSync(badSeed, JSON.stringify([{ operation: 'features.create', body: { feature_id: 'x' } }]));
    const cases: [string[], RegExp][] = [
      [['--fault', 'NOPE'], /--fault "NOPE": no fault breaks such a rule; closest: /],
      [['--prot', '1'], /Unknown option '--prot'; did you mean --port/],
      [['--seed', join(work, 'missing.json')], /--seed .*missing\.json: ENOENT/],
      [['--seed', badSeed], /--seed .*bad-seed\.json: seed call features\.create has an invalid body/],
    ];
    await Promise.all(
      cases.map(async ([args, expected]) => {
        const { code, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: ROOT }).then(
          () => ({ code: 0, stderr: '' }),
          (error: { code: number; stderr: string }) => error,
        );
        expect({ args, code }).toEqual({ args, code: 2 });
        expect(stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
        expect(stderr, args.join(' ')).toMatch(new RegExp(`^besi-fake: ${expected.source}`));
      }),
    );
  }, 120_000);
});

describe('npm run fake', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('stops on %s sent to npm, with the port released', async (signal) => {
    const fake = await startFake('npm', ['run', 'fake', '--', '--port', '0', '--ready-json'], { cwd: ROOT });
    const response = await fetch(`${fake.ready.url}/v1/features.list`, { method: 'POST', headers: { authorization: `Bearer ${fake.ready.keys[0]!.key}` }, body: '{}' });
    expect(response.status).toBe(200);
    const ms = await stopFake(fake, signal);
    console.info(`npm run fake: port released ${Math.round(ms)} ms after ${signal} to npm`);
  }, 60_000);
});
