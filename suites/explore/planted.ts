/**
 * Measures a batch of bugs planted by hand in the fake (patches kept outside the repository, so
 * the suite's authors never see them and they keep measuring): for each patch, applied to a scratch
 * git worktree of this repository, what the conformance scenarios alone catch (a run of the scratch
 * copy's CLI against its own embedded fake, exploration left out) and what exploration alone catches
 * (in a child process: the scratch copy's buggy fake as the target, this worktree's fake as the
 * reference model). The scratch copy is restored after every patch.
 *
 *   npx tsx suites/explore/planted.ts --patches <dir of *.patch> --scratch <git worktree>
 *       [--mode both|scenarios|exploration|url] [--runs 150] [--seed 424242] [--only <part,…>]
 *       [--reverse] [--out <results.json>]
 *   npx tsx suites/explore/planted.ts --summary <results.json…> [--index <batch's index.json>]
 *
 * `--mode url` measures what a vendor's certificate catches: the scratch copy's fake started as a
 * process, and this worktree's CLI run against it by URL with its defaults (exploration included).
 *
 * A bug counts as caught by the scenarios when the run fails a rule (MUST, or SHOULD as well), and by
 * exploration when it reports a finding; the summary prints both, and scenarios and exploration
 * together. `--reverse` takes the patches from the last, so a second scratch copy can meet the
 * first half-way; results of several `--out` files are merged with `--summary <file…>`; with
 * `--index` (the batch's index.json), a `--mode url` batch is scored in counts: caught, and caught
 * under each bug's own rule, by the scenarios, the exploration and both.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { FakeApp, FakeAppOptions } from '../../fake-server/app.ts';
import { createNamespace } from '../framework/namespace.ts';
import { explore } from './explorer.ts';
import { inProcessTarget } from './targets.ts';

const HERE = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface PlantedResult {
  readonly patch: string;
  /** The rules the scenarios failed (`RULE:LEVEL`); undefined when not measured. */
  readonly scenarios?: { readonly exitCode: number; readonly seconds: number; readonly fail: readonly string[] };
  /** `--mode url`: a vendor's default run by URL against the bug in its own fake process; the FAIL rules, and those only the exploration failed. */
  readonly run?: { readonly exitCode: number; readonly seconds: number; readonly fail: readonly string[]; readonly fromExploration: readonly string[]; readonly byExploration?: readonly string[] };
  /** The rules of exploration's findings (`RULE:LEVEL`). */
  readonly exploration?: { readonly findings: readonly string[]; readonly programs: number; readonly seconds: number; readonly error?: string };
}

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): { code: number; stdout: string } {
  try {
    return { code: 0, stdout: execFileSync(command, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 }) };
  } catch (error) {
    const failed = error as { status?: number; stdout?: string };
    return { code: failed.status ?? -1, stdout: failed.stdout ?? '' };
  }
}

function failedRules(reportFile: string): string[] {
  if (!existsSync(reportFile)) return ['(no report)'];
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as { rules: Record<string, { status: string; level: string }> };
  return Object.entries(report.rules)
    .filter(([, rule]) => rule.status === 'FAIL')
    .map(([id, rule]) => `${id}:${rule.level}`);
}

/** The scenarios alone against the scratch copy's embedded fake (with the bug). */
function scenarios(scratch: string, seed: number, reportDir: string): NonNullable<PlantedResult['scenarios']> {
  mkdirSync(reportDir, { recursive: true });
  const started = Date.now();
  const { code } = run(process.execPath, ['suites/cli.mjs', 'run', '--report-dir', reportDir, '--seed', String(seed)], scratch, { CONFORMANCE_EXPLORE_RUNS: '0' });
  return { exitCode: code, seconds: Math.round((Date.now() - started) / 1000), fail: failedRules(join(reportDir, 'report.json')) };
}

/** A sandbox key of the vendor's organisation, its live key, and another organisation's (the fake's --key). */
const PLANTED_KEYS = { apiKey: 'am_sk_test_plantedA', liveKey: 'am_sk_live_plantedA', otherTenantApiKey: 'am_sk_test_plantedB' };

/**
 * A vendor's run: the scratch copy's fake (with the bug) started as a process, and this worktree's
 * CLI run against it by URL with its defaults, the exploration inside it included.
 */
async function byUrl(scratch: string, seed: number, reportDir: string): Promise<NonNullable<PlantedResult['run']>> {
  mkdirSync(reportDir, { recursive: true });
  const fake = spawn(process.execPath, ['--import', 'tsx', 'fake-server/cli.ts', '--ready-json', '--port', '0', '--key', `${PLANTED_KEYS.apiKey}:org_a`, '--key', `${PLANTED_KEYS.liveKey}:org_a`, '--key', `${PLANTED_KEYS.otherTenantApiKey}:org_b`], { cwd: scratch, stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const url = await new Promise<string>((resolveUrl, reject) => {
      let seen = '';
      fake.stdout.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const line = seen.split('\n').find((l) => l.startsWith('{'));
        if (line !== undefined) resolveUrl((JSON.parse(line) as { url: string }).url);
      });
      fake.on('exit', (code) => reject(new Error(`the planted fake exited (${code}) before it was ready`)));
    });
    const started = Date.now();
    const child = spawn(process.execPath, ['suites/cli.mjs', 'run', '--base-url', url, '--report-dir', reportDir, '--seed', String(seed)], {
      cwd: ROOT,
      env: { ...process.env, API_KEY: PLANTED_KEYS.apiKey, OTHER_TENANT_API_KEY: PLANTED_KEYS.otherTenantApiKey, CI: 'true' },
      stdio: 'ignore',
    });
    const exitCode = await new Promise<number>((done) => child.on('close', (code) => done(code ?? -1)));
    const reportFile = join(reportDir, 'report.json');
    const rules = existsSync(reportFile) ? Object.entries((JSON.parse(readFileSync(reportFile, 'utf8')) as { rules: Record<string, { status: string; level: string; scenarios: { scenario: string; status: string }[] }> }).rules) : [];
    const failing = rules.filter(([, rule]) => rule.status === 'FAIL');
    // Failed by the exploration only; and every rule the exploration failed, whether a scenario did too.
    const fromExploration = failing.filter(([, rule]) => rule.scenarios.every((s) => s.status !== 'FAIL' || s.scenario === 'explore')).map(([id, rule]) => `${id}:${rule.level}`);
    const byExploration = failing.filter(([, rule]) => rule.scenarios.some((s) => s.status === 'FAIL' && s.scenario === 'explore')).map(([id, rule]) => `${id}:${rule.level}`);
    return { exitCode, seconds: Math.round((Date.now() - started) / 1000), fail: failedRules(reportFile), fromExploration, byExploration };
  } finally {
    fake.kill('SIGTERM');
  }
}

/** Exploration alone, in a child process (the scratch copy's modules must load afresh for each patch). */
function exploration(scratch: string, seed: number, runs: number): NonNullable<PlantedResult['exploration']> {
  const { stdout } = run('npx', ['tsx', HERE, '--explore-one', scratch, '--seed', String(seed), '--runs', String(runs)], ROOT);
  const last = stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last) as NonNullable<PlantedResult['exploration']>;
  } catch {
    return { findings: [], programs: 0, seconds: 0, error: `no result: ${last.slice(0, 200)}` };
  }
}

async function exploreOne(scratch: string, seed: number, runs: number): Promise<void> {
  const { createFakeApp } = (await import(pathToFileURL(join(scratch, 'fake-server/app.ts')).href)) as { createFakeApp: (options?: FakeAppOptions) => FakeApp };
  const started = Date.now();
  // A planted bug may throw: the fake then answers 500, which exploration reports as the target's fault.
  const target = inProcessTarget(createFakeApp({ onInternalError: () => undefined }), createNamespace({ prefix: 'conf', seed }));
  const result = await explore(target, { seed, runs, maxSteps: 30, maxFindings: 2, shrinkRuns: 60 });
  const outcome: NonNullable<PlantedResult['exploration']> = {
    findings: result.findings.map((f) => `${f.rule}:${f.level}`),
    programs: result.programs,
    seconds: Math.round((Date.now() - started) / 1000),
    ...(result.error ? { error: result.error } : {}),
  };
  console.log(JSON.stringify(outcome));
}

/** Caught counts: by the scenarios (any FAIL, and a MUST FAIL), by exploration, by both together. */
export function summarise(results: readonly PlantedResult[]): string[] {
  const byPatch = new Map<string, { scenarios?: PlantedResult['scenarios']; exploration?: PlantedResult['exploration'] }>();
  for (const r of results) byPatch.set(r.patch, { ...byPatch.get(r.patch), ...(r.scenarios ? { scenarios: r.scenarios } : {}), ...(r.exploration ? { exploration: r.exploration } : {}) });
  const rows = [...byPatch].filter(([, r]) => r.scenarios || r.exploration).sort(([a], [b]) => a.localeCompare(b));
  const caughtS = (r: { scenarios?: PlantedResult['scenarios'] }) => (r.scenarios?.fail.length ?? 0) > 0;
  const mustS = (r: { scenarios?: PlantedResult['scenarios'] }) => r.scenarios?.fail.some((f) => f.endsWith(':MUST')) ?? false;
  const caughtE = (r: { exploration?: PlantedResult['exploration'] }) => (r.exploration?.findings.length ?? 0) > 0;
  const mustE = (r: { exploration?: PlantedResult['exploration'] }) => r.exploration?.findings.some((f) => f.endsWith(':MUST')) ?? false;
  const both = rows.filter(([, r]) => r.scenarios && r.exploration);
  const count = (list: typeof rows, p: (r: (typeof rows)[number][1]) => boolean) => list.filter(([, r]) => p(r)).length;
  const lines = rows.map(([patch, r]) => `${patch.replace(/\.patch$/, '').padEnd(48)} scenarios ${r.scenarios ? r.scenarios.fail.join(' ') || '-' : '(not run)'} | exploration ${r.exploration ? r.exploration.findings.join(' ') || '-' : '(not run)'}`);
  const vendor = results.filter((r) => r.run !== undefined);
  for (const r of vendor) lines.push(`${r.patch.replace(/\.patch$/, '').padEnd(48)} run by URL (exit ${r.run!.exitCode}, ${r.run!.seconds} s) ${r.run!.fail.join(' ') || '-'}${r.run!.fromExploration.length > 0 ? ` (by exploration only: ${r.run!.fromExploration.join(' ')})` : ''}`);
  if (vendor.length > 0) {
    const caught = vendor.filter((r) => r.run!.fail.length > 0);
    lines.push(
      `${vendor.length} bugs, a default run by URL: ${caught.length} caught (${vendor.filter((r) => r.run!.fail.some((f) => f.endsWith(':MUST'))).length} by a MUST rule), ` +
        `${vendor.filter((r) => r.run!.fail.length > 0 && r.run!.fail.every((f) => r.run!.fromExploration.includes(f))).length} of them by the exploration only`,
    );
  }
  const n = both.length;
  lines.push(
    `${n} bugs measured both ways: scenarios alone catch ${count(both, caughtS)} (${count(both, mustS)} by a MUST rule); exploration alone ${count(both, caughtE)} (${count(both, mustE)} by MUST); ` +
      `scenarios and exploration together ${count(both, (r) => caughtS(r) || caughtE(r))} (${count(both, (r) => mustS(r) || mustE(r))} by MUST)`,
  );
  return lines;
}

/** A batch's index.json: each patch's dimension, the rule it breaks, and others whose sentence it breaks equally. */
type PlantedIndex = Record<string, { readonly dimension: string; readonly rule: string; readonly level: string; readonly alsoAcceptable?: readonly string[] }>;

/**
 * A default run by URL scored against the batch's index, in counts and patch numbers only (a batch kept
 * unseen stays unseen): caught at all, and under the patch's own rule; by the scenarios, by the
 * exploration, by both together; per dimension.
 */
export function scoreAgainstIndex(results: readonly PlantedResult[], byName: PlantedIndex): string[] {
  // An index may key its entries by the patch's file name (`01.patch`) or by its number (`01`).
  const index: PlantedIndex = Object.fromEntries(Object.entries(byName).map(([key, entry]) => [key.endsWith('.patch') ? key : `${key}.patch`, entry]));
  const runs = results.filter((r) => r.run !== undefined && index[r.patch] !== undefined);
  const ruleOf = (entry: string) => entry.slice(0, entry.lastIndexOf(':'));
  const own = (patch: string) => new Set([index[patch]!.rule, ...(index[patch]!.alsoAcceptable ?? [])]);
  const ways = {
    'scenarios and exploration': (r: PlantedResult) => r.run!.fail,
    scenarios: (r: PlantedResult) => r.run!.fail.filter((f) => !r.run!.fromExploration.includes(f)),
    exploration: (r: PlantedResult) => r.run!.byExploration ?? r.run!.fromExploration,
  };
  const lines: string[] = [];
  for (const [way, failed] of Object.entries(ways)) {
    const caught = runs.filter((r) => failed(r).length > 0);
    const ownRule = runs.filter((r) => failed(r).some((f) => own(r.patch).has(ruleOf(f))));
    lines.push(`${way}: ${caught.length} of ${runs.length} caught (${Math.round((100 * caught.length) / Math.max(1, runs.length))}%), ${ownRule.length} under their own rule; missed: ${runs.filter((r) => failed(r).length === 0).map((r) => r.patch.slice(0, 2)).join(' ') || 'none'}`);
  }
  for (const dimension of [...new Set(runs.map((r) => index[r.patch]!.dimension))].sort()) {
    const of = runs.filter((r) => index[r.patch]!.dimension === dimension);
    lines.push(`  ${dimension}: ${of.filter((r) => r.run!.fail.length > 0).length} of ${of.length} caught, ${of.filter((r) => r.run!.fail.some((f) => own(r.patch).has(ruleOf(f)))).length} under their own rule`);
  }
  return lines;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      patches: { type: 'string' },
      scratch: { type: 'string' },
      mode: { type: 'string', default: 'both' },
      runs: { type: 'string', default: '150' },
      seed: { type: 'string', default: '424242' },
      only: { type: 'string' },
      reverse: { type: 'boolean', default: false },
      out: { type: 'string' },
      summary: { type: 'boolean', default: false },
      'explore-one': { type: 'string' },
      index: { type: 'string' },
    },
  });
  const seed = Number(values.seed);
  const runs = Number(values.runs);
  if (values['explore-one'] !== undefined) return exploreOne(resolve(values['explore-one']), seed, runs);
  if (values.summary) {
    const results = positionals.flatMap((file) => JSON.parse(readFileSync(file, 'utf8')) as PlantedResult[]);
    const lines = values.index === undefined ? summarise(results) : scoreAgainstIndex(results, JSON.parse(readFileSync(values.index, 'utf8')) as PlantedIndex);
    for (const line of lines) console.log(line);
    return;
  }
  if (values.patches === undefined || values.scratch === undefined) throw new Error('usage: planted.ts --patches <dir> --scratch <git worktree> [--mode both|scenarios|exploration|url] [--runs n] [--seed n] [--only a,b] [--reverse] [--out file]  |  --summary <results.json…>');
  const patchDir = resolve(values.patches);
  const scratch = resolve(values.scratch);
  const only = values.only?.split(',');
  const patches = readdirSync(patchDir)
    .filter((file) => file.endsWith('.patch') && (only === undefined || only.some((part) => file.includes(part))))
    .sort();
  if (values.reverse) patches.reverse();
  const out = resolve(values.out ?? join(patchDir, `results-${values.mode}.json`));
  const results: PlantedResult[] = [];
  for (const patch of patches) {
    execFileSync('git', ['checkout', '--', '.'], { cwd: scratch });
    execFileSync('git', ['apply', join(patchDir, patch)], { cwd: scratch });
    try {
      const reportDir = join(tmpdir(), 'planted', patch.replace(/\.patch$/, ''));
      const result: PlantedResult =
        values.mode === 'url'
          ? { patch, run: await byUrl(scratch, seed, reportDir) }
          : {
              patch,
              ...(values.mode !== 'exploration' ? { scenarios: scenarios(scratch, seed, reportDir) } : {}),
              ...(values.mode !== 'scenarios' ? { exploration: exploration(scratch, seed, runs) } : {}),
            };
      results.push(result);
      console.log(JSON.stringify(result));
    } finally {
      execFileSync('git', ['checkout', '--', '.'], { cwd: scratch });
    }
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  }
  for (const line of summarise(results)) console.log(line);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
