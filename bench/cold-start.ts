/**
 * Cold start: spawn to the first 200 answer, for each way a user starts the fake, beside the floor
 * started the same way: bench/floor.mjs, a bare node:http server printing its URL, run by `node`
 * and, in a project that installed both, as a package bin through `npx` and an npm script. The two
 * of a pair take turns and the ratio is taken pair by pair, so a machine whose speed drifts (other
 * load) moves both alike. `npm run bench:cold-start` writes docs/cold-start.md (the figures, the
 * date, the machine and its load); `npm run bench` includes them (`--only coldstart`).
 *
 * The installed project is the packed tarball (`npm pack`, the bin compiled by `npm run build`)
 * unpacked into a temporary project's node_modules, its dependencies linked from this repository's,
 * the way fake-server/packaged.test.ts installs it, with a second package whose bin is the floor.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadAverage, machine, machineLine } from './machine.ts';
import { type Started, startPrintingUrl } from './processes.ts';
import { formatSpread, type Spread, spread } from './stats.ts';
import { HEADERS } from './workloads.ts';

const ROOT = join(import.meta.dirname, '..');

/** One way of starting a server: the command as a user types it, whether in the installed project, and how. */
export interface Starter {
  readonly label: string;
  readonly installed?: boolean;
  readonly start: () => Promise<Started>;
}

export interface ColdStartPair {
  readonly fake: string;
  readonly floor: string;
  /** Both run in the installed project (else in this repository). */
  readonly installed: boolean;
  /** Spawn to first 200, milliseconds. */
  readonly fakeMs: Spread;
  readonly floorMs: Spread;
  /** Fake over floor, pair by pair. */
  readonly ratio: Spread;
}

/** Milliseconds from spawn to the first 200 answer (POST /v1/features.list), the server stopped after. */
async function firstAnswer(starter: Starter): Promise<number> {
  const started = performance.now();
  const server = await starter.start();
  try {
    const response = await fetch(`${server.url}/v1/features.list`, { method: 'POST', headers: HEADERS, body: '{}' });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`cold start of ${starter.label}: first answer was ${response.status}`);
    return performance.now() - started;
  } finally {
    await server.stop();
  }
}

/** `starts` cold starts of each, the fake and the floor taking turns; one start of each first, not counted (file caches, npm's and the bundle's). */
export async function measurePairs(pairs: readonly (readonly [fake: Starter, floor: Starter])[], starts: number, log: (line: string) => void = () => undefined): Promise<ColdStartPair[]> {
  const figures: ColdStartPair[] = [];
  for (const [fake, floor] of pairs) {
    await firstAnswer(fake);
    await firstAnswer(floor);
    const fakeMs: number[] = [];
    const floorMs: number[] = [];
    for (let i = 0; i < starts; i++) {
      fakeMs.push(await firstAnswer(fake));
      floorMs.push(await firstAnswer(floor));
    }
    const figure = { fake: fake.label, floor: floor.label, installed: fake.installed === true, fakeMs: spread(fakeMs), floorMs: spread(floorMs), ratio: spread(fakeMs.map((ms, i) => ms / floorMs[i]!)) };
    log(`bench: cold start, ${figure.fake}${figure.installed ? ' (installed)' : ''}: ${figure.fakeMs.median.toFixed(0)} ms, ${figure.ratio.median.toFixed(2)}× ${figure.floor} (${figure.floorMs.median.toFixed(0)} ms)`);
    figures.push(figure);
  }
  return figures;
}

const nodeRun = (label: string, script: string, args: readonly string[]): Starter => ({ label, start: () => startPrintingUrl(process.execPath, [script, ...args]) });

/** The floor run by node, as bench/floor.mjs. */
export const nodeFloor: Starter = nodeRun('node bench/floor.mjs', join(ROOT, 'bench/floor.mjs'), []);

/** A project with the packed package and a floor package installed; `remove` deletes it. */
interface InstalledProject {
  readonly dir: string;
  readonly remove: () => void;
}

/** Packs this repository (dist/ must be built: `npm run build`) and installs the tarball and a floor package into a new temporary project. */
function installedProject(): InstalledProject {
  const dir = mkdtempSync(join(tmpdir(), 'besi-cold-start-'));
  const packed = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir, '--json', '--silent'], { cwd: ROOT, encoding: 'utf8' })) as { filename: string }[];
  const modules = join(dir, 'node_modules');
  const installed = join(modules, 'besi-conformance');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', join(dir, packed[0]!.filename), '-C', installed, '--strip-components=1']);
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { bin: Record<string, string>; dependencies: Record<string, string> };
  for (const name of Object.keys(manifest.dependencies)) {
    mkdirSync(join(modules, name, '..'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name), 'dir');
  }
  const floor = join(modules, 'besi-floor');
  mkdirSync(floor);
  writeFileSync(join(floor, 'package.json'), JSON.stringify({ name: 'besi-floor', version: '1.0.0', type: 'module', bin: { 'besi-floor': 'floor.mjs' } }));
  writeFileSync(join(floor, 'floor.mjs'), `#!/usr/bin/env node\n${readFileSync(join(ROOT, 'bench/floor.mjs'), 'utf8')}`);
  mkdirSync(join(modules, '.bin'));
  for (const [name, target] of [...Object.entries(manifest.bin).map(([name, path]) => [name, join('../besi-conformance', path)] as const), ['besi-floor', '../besi-floor/floor.mjs'] as const]) {
    chmodSync(join(modules, '.bin', target), 0o755);
    symlinkSync(target, join(modules, '.bin', name));
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module', scripts: { fake: 'besi-fake', floor: 'besi-floor' } }));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A command run in the installed project, with npm kept offline and quiet as an app team's CI would. */
function inProject(project: InstalledProject, label: string, command: string, args: readonly string[]): Starter {
  const env = { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false', npm_config_fund: 'false' };
  return { label, installed: true, start: () => startPrintingUrl(command, args, 60_000, { cwd: project.dir, env, group: true }) };
}

/**
 * The pairs: the compiled bin by node; the repository's `node scripts/fake.mjs` (behind `npm run
 * fake`); in an installed project `npx besi-fake` and `npm run fake` (a script `besi-fake`), each
 * with the floor started the same way.
 */
export async function measureColdStart(starts: number, log?: (line: string) => void): Promise<ColdStartPair[]> {
  const bin = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['besi-fake']!.replace(/^\.\//, '');
  const project = installedProject();
  try {
    return await measurePairs(
      [
        [nodeRun(`node ${bin}`, join(ROOT, bin), ['--port', '0']), nodeFloor],
        [nodeRun('node scripts/fake.mjs', join(ROOT, 'scripts/fake.mjs'), ['--port', '0']), nodeFloor],
        [inProject(project, 'npx besi-fake', 'npx', ['besi-fake', '--port', '0']), inProject(project, 'npx besi-floor', 'npx', ['besi-floor'])],
        [inProject(project, 'npm run fake', 'npm', ['run', '--silent', 'fake', '--', '--port', '0']), inProject(project, 'npm run floor', 'npm', ['run', '--silent', 'floor'])],
      ],
      starts,
      log,
    );
  } finally {
    project.remove();
  }
}

/** The figures as a markdown table, one row a pair. */
export function coldStartLines(pairs: readonly ColdStartPair[]): string[] {
  return [
    '| where | the fake started as | spawn to first 200, ms | the floor started as | floor, ms | fake / floor |',
    '|---|---|---|---|---|---|',
    ...pairs.map((p) => `| ${p.installed ? 'an installed project' : 'this repository'} | \`${p.fake}\` | ${formatSpread(p.fakeMs)} | \`${p.floor}\` | ${formatSpread(p.floorMs)} | ${formatSpread(p.ratio, 2)} |`),
  ];
}

/** `npm run bench:cold-start [-- --starts n]`: builds dist/, measures, prints the table and writes it with the date, machine and load to docs/cold-start.md. */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { starts: { type: 'string', default: '10' } }, strict: true });
  const starts = Number(values.starts);
  if (!Number.isSafeInteger(starts) || starts < 1) throw new Error(`--starts takes a positive integer, not ${values.starts}`);
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('npm run build failed: the bin is measured as built');
  const ran = machine();
  const startedAt = new Date();
  const pairs = await measureColdStart(starts, (line) => console.error(line));
  const table = coldStartLines(pairs);
  console.log(table.join('\n'));
  const doc = [
    '# Cold start of the fake',
    '',
    'You want to know how long the fake takes to answer once started, each way you can start it, beside a bare Node server started the same way.',
    '`npm run bench:cold-start` (`bench/cold-start.ts`) measured and wrote this page; run it again rather than edit it.',
    '',
    'Spawn to the first 200 answer (`POST /v1/features.list`), beside `bench/floor.mjs` (the floor: a bare node:http server printing its URL) started the same way.',
    `The two take turns; median (min–max) of ${starts} starts each after one not counted; the ratio is taken pair by pair, so load on the machine moves both alike.`,
    "An installed project: the packed package in a project's node_modules, beside a package whose bin is the floor, with the scripts `fake: besi-fake` and `floor: besi-floor`.",
    'Target: the fake within 2× of its floor.',
    '',
    `Measured ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineLine(ran)}, ${loadAverage().join(' ')} at the end.`,
    '',
    ...table,
    '',
  ];
  mkdirSync(join(ROOT, 'docs'), { recursive: true });
  writeFileSync(join(ROOT, 'docs/cold-start.md'), doc.join('\n'));
  console.log('\ndocs/cold-start.md written.');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
