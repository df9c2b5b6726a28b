/**
 * The package as app teams get it: `npm pack` (which builds dist/, once), the tarball unpacked into
 * separate projects (examples/: app-team with vitest and plain Node scripts, jest-commonjs and
 * jest-esm, each jest project set up as jest's documentation says, with babel-jest and no other
 * configuration), their dependencies linked from this repository's node_modules at the versions they
 * pin, offline: only the package's declared dependencies and each project's own, so a runtime
 * import of anything undeclared fails here. Each project then runs its own strict `tsc` and its
 * tests; the app-team project also its plain Node scripts (CommonJS with require(esm) off, as on
 * Node 20 before 20.19) and the `besi-fake` bin, directly and through npx, stopped by signals.
 * A vendor's project holds the package and its declared dependencies only, nothing of its own:
 * there each bin must answer --help, and `besi-conformance run` and `explore` must test a fake by URL.
 */
import { execFile } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFake, stopFake } from './cli/testing.ts';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
const MINUTE = 60_000;
const EXAMPLES = ['app-team', 'jest-commonjs', 'jest-esm'] as const;
type Example = (typeof EXAMPLES)[number];

interface Manifest {
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  exports: Record<string, string | Record<string, Record<string, string>>>;
}

let work: string;
let tarball: string;
let manifest: Manifest;
const projects = {} as Record<Example | 'vendor', string>;

/** Reads a JSON file. */
const json = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

/** Unpacks the tarball into a project with the bins npm would link, and links the package's declared dependencies and the project's own (at the versions it pins). */
async function installPackage(project: string, pinned: Record<string, string>): Promise<void> {
  const installed = join(project, 'node_modules/besi-conformance');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  mkdirSync(join(project, 'node_modules/.bin'));
  for (const [name, path] of Object.entries(manifest.bin)) {
    chmodSync(join(installed, path), 0o755);
    symlinkSync(join('../besi-conformance', path), join(project, 'node_modules/.bin', name));
  }
  const linked = new Set([...Object.keys(manifest.dependencies), ...Object.keys(pinned)]);
  linked.delete('besi-conformance');
  for (const name of linked) {
    const source = join(ROOT, 'node_modules', name);
    if (pinned[name] !== undefined) expect(json<{ version: string }>(join(source, 'package.json')).version, `${project} pins ${name}`).toBe(pinned[name]);
    const link = join(project, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(source, link, 'dir');
  }
}

/** Copies an example into its own project and installs the package there. */
async function install(example: Example): Promise<string> {
  const project = join(work, example);
  cpSync(join(ROOT, 'examples', example), project, { recursive: true });
  await installPackage(project, json<{ devDependencies: Record<string, string> }>(join(project, 'package.json')).devDependencies);
  return project;
}

/** Runs a command in a project; resolves with its output, or fails with it. */
async function inProject(example: Example | 'vendor', command: string, args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: projects[example], maxBuffer: 16 * 1024 * 1024, env: { ...process.env, CI: 'true', NO_COLOR: '1', ...env } });
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
  const unpacked = join(work, 'unpacked');
  mkdirSync(unpacked);
  await run('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1', 'package/package.json']);
  manifest = json<Manifest>(join(unpacked, 'package.json'));
  for (const example of EXAMPLES) projects[example] = await install(example);
  projects.vendor = join(work, 'vendor');
  mkdirSync(projects.vendor);
  writeFileSync(join(projects.vendor, 'package.json'), '{ "name": "vendor", "private": true }\n');
  await installPackage(projects.vendor, {});
}, 5 * MINUTE);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const startInApp = (command: string, args: readonly string[], options: { detached?: boolean } = {}) => startFake(command, args, { cwd: projects['app-team'], ...options });

describe('the packed package', () => {
  it('holds the compiled code in both formats, its declarations, README and LICENSE, and no sources or tests but the scenario files', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').filter(Boolean);
    expect(files).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/README.md',
        'package/LICENSE',
        'package/dist/fake-server/index.js',
        'package/dist/fake-server/index.d.ts',
        'package/dist/cjs/package.json',
        'package/dist/cjs/fake-server/index.js',
        'package/dist/cjs/fake-server/index.d.ts',
        'package/dist/suites/profiles/default.json',
        'package/dist/spec/openapi.json',
      ]),
    );
    expect(files).toContain('package/dist/suites/scenarios/customers.test.js');
    // The scenario files and the run's short exploration are how vitest runs the conformance suite from dist/: the only test files shipped.
    expect(files).toContain('package/dist/suites/explore/exploration.test.js');
    const shippedTest = (file: string) => file.startsWith('package/dist/suites/scenarios/') || file === 'package/dist/suites/explore/exploration.test.js';
    expect(files.filter((file) => (file.endsWith('.ts') && !file.endsWith('.d.ts')) || (file.includes('.test.') && !shippedTest(file)) || file.includes('tsbuildinfo'))).toEqual([]);
  });

  it('gives every entry point import and require conditions, each with code and types of its own format, all present', () => {
    for (const [entry, conditions] of Object.entries(manifest.exports)) {
      if (entry === './package.json') continue;
      expect(Object.keys(conditions), entry).toEqual(['import', 'require']);
      for (const [condition, target] of Object.entries(conditions as Record<string, Record<string, string>>)) {
        expect(Object.keys(target), `${entry} ${condition}`).toEqual(['types', 'default']);
        for (const file of Object.values(target)) expect(existsSync(join(projects['app-team'], 'node_modules/besi-conformance', file)), `${entry} ${condition}: ${file}`).toBe(true);
        expect(target['default']!.includes('/cjs/'), `${entry} ${condition}`).toBe(condition === 'require');
      }
    }
    expect(json<{ type: string }>(join(projects['app-team'], 'node_modules/besi-conformance/dist/cjs/package.json')).type).toBe('commonjs');
  });
});

describe('an app team project: plain Node, tsc, vitest, the bin', () => {
  it('plain Node imports it and starts the fake', async () => {
    const output = JSON.parse(await inProject('app-team', process.execPath, ['start-fake.mjs'])) as { status: number; body: unknown; operations: number };
    expect(output).toMatchObject({ status: 200, body: { list: [] } });
    expect(output.operations).toBeGreaterThan(20);
  }, MINUTE);

  it('plain Node requires every entry point as CommonJS, with require(esm) off as on Node 20 before 20.19', async () => {
    const output = JSON.parse(await inProject('app-team', process.execPath, ['--no-experimental-require-module', 'start-fake.cjs'])) as Record<string, unknown>;
    expect(output).toMatchObject({ status: 200, body: { list: [] }, tenant: true, oneFakeControl: true, reportSchema: 'function' });
    expect(output['operations']).toBeGreaterThan(20);
  }, MINUTE);

  it('require() of the suite entries says to import them (vitest loads them as ES modules)', async () => {
    for (const entry of ['besi-conformance/suite', 'besi-conformance/suite/global-setup']) {
      const output = await inProject('app-team', process.execPath, ['--no-experimental-require-module', '-e', `try { require('${entry}') } catch (error) { console.log(error.message) }`]);
      expect(output).toContain(`${entry} runs inside vitest, which loads test files and global setups as ES modules and cannot be require()d`);
    }
  }, MINUTE);

  it("type-checks in the app's own strict NodeNext project (exactOptionalPropertyTypes too) with 0 errors", async () => {
    await inProject('app-team', process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', '.']);
  }, 2 * MINUTE);

  it("runs the app's vitest files: in-process, no socket, and two files sharing one fake, each on its own tenant (autumn-js recognised, no option)", async () => {
    const output = await inProject('app-team', process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--reporter=verbose']);
    for (const file of ['in-process.test.ts', 'no-socket.test.ts', 'shared-a.test.ts', 'shared-b.test.ts']) expect(output).toContain(file);
    expect(output).toMatch(/Tests\s+4 passed/);
  }, 3 * MINUTE);

  it.each(['SIGTERM', 'SIGINT'] as const)('the besi-fake bin answers once ready and stops on %s with the port released', async (signal) => {
    const fake = await startInApp(join(projects['app-team'], 'node_modules/.bin/besi-fake'), ['--port', '0', '--ready-json']);
    expect(fake.ready.control_url).toBe(`${fake.ready.url}/_fake`);
    const response = await fetch(`${fake.ready.url}/v1/features.list`, { method: 'POST', headers: { authorization: `Bearer ${fake.ready.keys[0]!.key}`, 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(200);
    await stopFake(fake, signal);
    expect(await fake.exited).toEqual({ code: 0, signal: null });
  }, MINUTE);

  it('the bin refuses a malformed option in one line naming it, with exit code 2', async () => {
    for (const [args, expected] of [
      [['--key', 'nope'], /^besi-fake: --key "nope": keys look like am_sk_test_…/],
      [['--fault', 'NOPE'], /^besi-fake: --fault "NOPE": no fault breaks such a rule; closest: [A-Z-]+, [A-Z-]+, [A-Z-]+ \(--list-faults lists all \d+\)/],
    ] as const) {
      const refused = await inProject('app-team', 'node_modules/.bin/besi-fake', args).then(
        () => undefined,
        (error: Error) => error,
      );
      const { code, stderr } = refused?.cause as { code: number; stderr: string };
      expect(code, args.join(' ')).toBe(2);
      expect(stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
      expect(stderr).toMatch(expected);
    }
  }, MINUTE);

  // npm runs a bin through `sh -c`, and passes SIGTERM and SIGINT to that shell only. Debian's sh
  // (dash) neither execs the command nor passes signals on: it dies of SIGTERM, orphaning the fake,
  // which then stops by itself (it watches its parent when npm started it); it holds SIGINT until
  // its child exits, so a SIGINT must reach the fake itself: Ctrl-C signals the whole process group,
  // and `npx -c 'exec besi-fake …'` leaves no shell in between.
  it('npx besi-fake: SIGTERM to npx stops the fake (its shell dies, the fake sees it), SIGINT to the process group too', async () => {
    const terminated = await startInApp('npx', ['besi-fake', '--port', '0', '--ready-json']);
    const afterTerm = await stopFake(terminated, 'SIGTERM');
    const interrupted = await startInApp('npx', ['besi-fake', '--port', '0', '--ready-json'], { detached: true });
    const afterInt = await stopFake(interrupted, 'SIGINT', 'group');
    console.info(`npx besi-fake: port released ${Math.round(afterTerm)} ms after SIGTERM to npx, ${Math.round(afterInt)} ms after SIGINT to its process group`);
  }, 2 * MINUTE);

  it.each(['SIGTERM', 'SIGINT'] as const)("npx -c 'exec besi-fake …': %s to npx reaches the fake", async (signal) => {
    const fake = await startInApp('npx', ['-c', 'exec besi-fake --port 0 --ready-json']);
    await stopFake(fake, signal);
  }, MINUTE);
});

describe.each([
  ['jest-commonjs', [], 'CommonJS'],
  ['jest-esm', ['--experimental-vm-modules'], 'ES modules'],
] as const)('a jest 30 project, %s: default configuration, babel-jest, no transformIgnorePatterns', (example, nodeOptions, format) => {
  it(`type-checks against the package's ${format} declarations with 0 errors`, async () => {
    await inProject(example, process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', '.']);
  }, 2 * MINUTE);

  it('runs its tests against the fake with autumn-js', async () => {
    const output = await inProject(example, process.execPath, [...nodeOptions, 'node_modules/jest/bin/jest.js', '--ci', '--verbose']);
    expect(output).toMatch(/Tests:\s+2 passed, 2 total/);
  }, 3 * MINUTE);
});

// What a vendor does with the package alone: npx runs the bins from the project's node_modules.
describe('a vendor project holding only the package: every bin works', () => {
  const npx = (args: readonly string[], env: Record<string, string> = {}) => inProject('vendor', 'npx', args, { npm_config_offline: 'true', npm_config_update_notifier: 'false', ...env });

  it('holds nothing but the package and its declared dependencies', () => {
    const installed = readdirSync(join(projects.vendor, 'node_modules')).flatMap((name) => (name.startsWith('@') ? readdirSync(join(projects.vendor, 'node_modules', name)).map((inner) => `${name}/${inner}`) : [name]));
    expect(installed.filter((name) => name !== '.bin').sort()).toEqual(['besi-conformance', ...Object.keys(manifest.dependencies)].sort());
    expect(manifest.peerDependencies, 'a peer dependency the vendor would have to install').toBeUndefined();
  });

  it('npx besi-conformance --help and npx besi-fake --help answer', async () => {
    const help = await npx(['besi-conformance', '--help']);
    for (const command of ['run', 'list', 'explore', 'baseline']) expect(help).toContain(`${command} [options]`);
    expect(await npx(['besi-fake', '--help'])).toContain('--port');
  }, MINUTE);

  it('npx besi-conformance run and explore test a fake started by npx besi-fake, by URL', async () => {
    const fake = await startFake('npx', ['besi-fake', '--port', '0', '--ready-json'], { cwd: projects.vendor });
    try {
      const env = { API_KEY: fake.ready.keys[0]!.key };
      const ran = await npx(['besi-conformance', 'run', '--base-url', fake.ready.url, '--only', 'envelope.version-2-4-0', '--report-dir', 'out'], env);
      expect(ran).toContain('PASSED, exit 0');
      expect(readFileSync(join(projects.vendor, 'out/summary.md'), 'utf8')).toMatch(/passed/i);
      const explored = await npx(['besi-conformance', 'explore', '--base-url', fake.ready.url, '--runs', '2', '--max-steps', '5', '--report-dir', 'out'], env);
      expect(explored).toContain('explore: 2 programs');
    } finally {
      await stopFake(fake, 'SIGTERM');
    }
  }, 3 * MINUTE);
});
