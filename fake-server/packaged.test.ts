/**
 * The package as an app team gets it: `npm pack` (which builds dist/), the tarball unpacked into a
 * separate project (examples/app-team) whose dependencies are linked from this repository's
 * node_modules, offline: only the package's declared dependencies and the app's own, so a runtime
 * import of anything undeclared fails here. The project then runs its plain Node script, its own
 * strict `tsc`, its vitest files (the README's recipes) and the `besi-fake` bin.
 */
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
const MINUTE = 60_000;

let work: string;
let project: string;
let tarball: string;
let manifest: { bin: Record<string, string>; dependencies: Record<string, string>; peerDependencies: Record<string, string> };

/** Runs a command in the app project; resolves with its output, or fails with it. */
async function inProject(command: string, args: readonly string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: project, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, CI: 'true', NO_COLOR: '1' } });
    return stdout + stderr;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout}\n${stderr}`, { cause: error });
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'besi-app-team-'));
  const { stdout } = await run('npm', ['pack', '--pack-destination', work, '--json', '--silent'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  tarball = join(work, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
  project = join(work, 'app');
  cpSync(join(ROOT, 'examples/app-team'), project, { recursive: true });
  const installed = join(project, 'node_modules/besi-conformance');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  const app = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const linked = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies), ...Object.keys(app.devDependencies)]);
  linked.delete('besi-conformance');
  for (const name of linked) {
    const link = join(project, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), link, 'dir');
  }
}, 5 * MINUTE);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed package, installed in an app team project', () => {
  it('holds the compiled code, its declarations, README and LICENSE, and no sources or tests but the scenario files', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').filter(Boolean);
    expect(files).toEqual(expect.arrayContaining(['package/package.json', 'package/README.md', 'package/LICENSE', 'package/dist/fake-server/index.js', 'package/dist/fake-server/index.d.ts', 'package/dist/suites/profiles/default.json', 'package/dist/spec/openapi.json']));
    expect(files).toContain('package/dist/suites/scenarios/customers.test.js');
    expect(files.filter((file) => (file.endsWith('.ts') && !file.endsWith('.d.ts')) || (file.includes('.test.') && !file.startsWith('package/dist/suites/scenarios/')))).toEqual([]);
  });

  it('plain Node imports it and starts the fake', async () => {
    const output = JSON.parse(await inProject(process.execPath, ['start-fake.mjs'])) as { status: number; body: unknown; operations: number };
    expect(output).toMatchObject({ status: 200, body: { list: [] } });
    expect(output.operations).toBeGreaterThan(20);
  }, MINUTE);

  it("type-checks in the app's own strict NodeNext project (exactOptionalPropertyTypes too) with 0 errors", async () => {
    await inProject(process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', '.']);
  }, 2 * MINUTE);

  it("runs the app's vitest files: in-process, no socket, and two files sharing one fake, each on its own tenant", async () => {
    const output = await inProject(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--reporter=verbose']);
    for (const file of ['in-process.test.ts', 'no-socket.test.ts', 'shared-a.test.ts', 'shared-b.test.ts']) expect(output).toContain(file);
    expect(output).toMatch(/Tests\s+4 passed/);
  }, 3 * MINUTE);

  it('starts the besi-fake bin, answers once ready, and stops on SIGTERM with the port released', async () => {
    const bin = join(project, 'node_modules/besi-conformance', manifest.bin['besi-fake']!);
    const child = spawn(process.execPath, [bin, '--port', '0', '--ready-json'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8');
    const ready = await new Promise<{ url: string; keys: { key: string }[]; control_url: string }>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        output += chunk;
        if (output.includes('\n')) resolve(JSON.parse(output.slice(0, output.indexOf('\n'))));
      });
      child.once('exit', (code) => reject(new Error(`besi-fake exited with ${code} before it was ready: ${output}`)));
    });
    expect(ready.control_url).toBe(`${ready.url}/_fake`);
    const response = await fetch(`${ready.url}/v1/features.list`, { method: 'POST', headers: { authorization: `Bearer ${ready.keys[0]!.key}`, 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const { port, hostname } = new URL(ready.url);
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(port), hostname).once('connect', () => resolve(socket.destroy() && false)).once('error', () => resolve(true));
    });
    expect(refused, 'the port is released').toBe(true);
  }, MINUTE);
});
