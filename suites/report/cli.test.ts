/**
 * The conformance CLI end to end, as a vendor meets it: the suite against a fake with two faults
 * (one MUST rule, one SHOULD rule), each command a real process, every assertion read from the
 * files it leaves. `--only` keeps each run to a handful of scenarios.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createFakeServer, type FakeServer } from '../../fake-server/index.ts';
import { ruleById } from '../../spec/rules/catalogue.ts';
import { CLI_COMMAND } from '../conformance-project.ts';
import { SCENARIOS } from '../scenarios/index.ts';
import { BASELINE_FORMAT, ConformanceReport } from './schema.ts';
import { childEnvironment } from '../meta/child-env.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Broken in the fake: a MUST rule and a SHOULD rule, each carried by one scenario that proves only it. */
const MUST_FAULT = 'PLAN-NAME-MIN-LENGTH';
const SHOULD_FAULT = 'FEAT-DUPLICATE-ID';
/** Passes against that fake. */
const PASSING = 'REF-UNKNOWN-PROGRAM';
/** Needs `exclusive-tenant`, which the test's profile leaves out: skipped with the reason (a SHOULD rule, the only one of its scenario). */
const SKIPPED = 'PLAN-AUTO-ENABLE-FREE';
const BROWSERS = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

let fake: FakeServer;
let dir: string;
let profile: string;

beforeAll(async () => {
  fake = await createFakeServer({ faults: [MUST_FAULT, SHOULD_FAULT] });
  dir = mkdtempSync(join(tmpdir(), 'conformance-cli-'));
  profile = join(dir, 'profile.json');
  writeFileSync(profile, JSON.stringify({ readOnly: false, capabilities: ['control-plane', 'paid-attach'] }));
});
afterAll(async () => {
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Ran {
  readonly code: number | null;
  readonly out: string;
}

/** The environment of a vendor's CI: the target and key, CI=true, none of this vitest worker's own variables. */
function cliEnv(): NodeJS.ProcessEnv {
  return { ...childEnvironment(), CI: 'true', BASE_URL: fake.url, API_KEY: fake.apiKey, CONFORMANCE_PROFILE: profile };
}

const CLI = [process.execPath, ...CLI_COMMAND] as const;

function cli(...args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(CLI[0], [...CLI.slice(1), ...args], { cwd: ROOT, env: cliEnv(), maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, out: `${stdout}${stderr}` });
    });
  });
}

function read(path: string): ConformanceReport {
  return ConformanceReport.parse(JSON.parse(readFileSync(path, 'utf8')));
}

function quote(rule: string): string {
  return ruleById.get(rule)!.quote;
}

describe('a run against a fake with two faults', () => {
  let ran: Ran;
  let report: ConformanceReport;
  const full = () => join(dir, 'full');

  beforeAll(async () => {
    ran = await cli('run', '--only', MUST_FAULT, SHOULD_FAULT, PASSING, SKIPPED, '--report-dir', full());
    report = read(join(full(), 'report.json'));
  }, 180_000);

  it('exits 1 and names both broken rules, each with its message and the command that re-runs it', () => {
    expect(ran.code, ran.out).toBe(1);
    expect(report.complete).toBe(true);
    expect(report.rules[MUST_FAULT]).toMatchObject({ status: 'FAIL', level: 'MUST', quote: quote(MUST_FAULT) });
    expect(report.rules[SHOULD_FAULT]).toMatchObject({ status: 'FAIL', level: 'SHOULD', quote: quote(SHOULD_FAULT) });
    expect(report.rules[PASSING]?.status).toBe('PASS');
    expect(report.rules[SKIPPED]).toMatchObject({ status: 'SKIP', reason: expect.stringContaining('needs the tenant to itself') });
    expect(report.counts.mustFailures).toBe(1);
    for (const rule of [MUST_FAULT, SHOULD_FAULT]) {
      expect(ran.out).toMatch(new RegExp(`^  ${rule} \\[FAIL (MUST|SHOULD)\\] (plans|features)\\.create: expected an error, got 200 .+$`, 'm'));
      // The target came from the environment; the command carries it (and a placeholder for the key).
      expect(ran.out).toContain(`re-run: API_KEY=… node suites/cli.mjs run --base-url ${fake.url} --api-version 2.4.0 --profile ${profile} --only ${rule} --seed 424242`);
    }
    expect(ran.out).not.toContain(fake.apiKey);
  });

  it('writes a curl per failure that replays the request with the key as $API_KEY', () => {
    const curl = report.rules[MUST_FAULT]?.scenarios[0]?.exchanges?.at(-1)?.curl;
    expect(curl).toMatch(/^curl -sS -X POST '.*\/v1\/plans\.create' -H "authorization: Bearer \$API_KEY" .*--data-raw '\{.*"name":""\}'$/);
    for (const file of ['report.json', 'report.html', 'summary.md', 'junit.xml']) expect(readFileSync(join(full(), file), 'utf8')).not.toContain(fake.apiKey);
  });

  it('summary.md gives the counts, one line per broken rule, the skip reason by cause, and each failing scenario\'s replay script once, folded, linked from its rules', () => {
    const md = readFileSync(join(full(), 'summary.md'), 'utf8');
    expect(md).toMatch(/^# Conformance: FAILED$/m);
    const { PASS, FAIL, BLOCKED, SKIP, ERROR } = report.counts.rules;
    expect([FAIL, SKIP]).toEqual([2, 1]);
    expect(md).toContain(`| **Total** | ${PASS} | ${FAIL} | ${BLOCKED} | ${SKIP} | ${ERROR} |`);
    // MUST first.
    expect(md).toMatch(new RegExp(`## Failing rules \\(2\\)\\n\\n.*\\n.*\\n\\| \\[\`${MUST_FAULT}\`\\]\\(report\\.html#failure-${MUST_FAULT}\\) \\| MUST \\| FAIL \\| plans\\.create: expected an error, got 200 .* \\|  \\| \\[\`[\\w.-]+\`\\]\\(#replay-[\\w-]+\\) \\|\\n\\| \\[\`${SHOULD_FAULT}\`\\]`));
    expect(md).toMatch(new RegExp(`^\\| SKIP \\| needs the tenant to itself, .* \\| 1: \\[\`${SKIPPED}\`\\]\\(report\\.html#rule-${SKIPPED}\\) \\|$`, 'm'));
    for (const rule of [MUST_FAULT, SHOULD_FAULT]) {
      const failure = report.rules[rule]!.scenarios[0]!;
      expect(md).toMatch(new RegExp(`<summary><a id="replay-[\\w-]+"></a><code>${failure.scenario.replaceAll('.', '\\.')}</code> \\(\\d+ call\\(s\\)\\): [^<]*${rule}`));
      expect(md).toContain(failure.replay!.trimEnd());
    }
    expect(md).toContain('## Left behind');
  });

  it('the replay script of a failing rule reproduces the failure on the target, in a fresh namespace', async () => {
    for (const rule of [MUST_FAULT, SHOULD_FAULT]) {
      const replay = report.rules[rule]!.scenarios[0]!.replay!;
      expect(replay).toMatch(new RegExp(`^#!/bin/sh\\n# Replays ${rule} \\(FAIL\\): scenario ${report.rules[rule]!.scenarios[0]!.scenario}, `));
      // Asynchronously: the fake answers from this process.
      const out = await new Promise<string>((resolve, reject) =>
        execFile('sh', ['-c', replay], { env: { PATH: process.env['PATH'], API_KEY: fake.apiKey, BASE_URL: fake.url } }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
      );
      const statuses = [...out.matchAll(/^=> HTTP (\d+)$/gm)].map((m) => Number(m[1]));
      const calls = [...replay.matchAll(/^# \d+\. \S+: the run got (\d+)/gm)].map((m) => Number(m[1]));
      // The same answers as in the run (the run's objects are still there: only a fresh namespace gives them), the last the one the rule failed on.
      expect(statuses, out).toEqual(calls);
      expect(statuses.at(-1)).toBe(200);
      const runRoot = /^# IDs of the run were (\w+?)_…/m.exec(replay)?.[1];
      expect(runRoot).toMatch(/^conf_[a-z0-9]{6}$/);
      expect(out).not.toContain(runRoot);
    }
    // A duplicate accepted takes two calls: the scenario from its first, not the failing request alone.
    expect(report.rules[SHOULD_FAULT]!.scenarios[0]!.replay!.match(/^curl /gm)!.length).toBeGreaterThan(1);
  });

  it('junit.xml is well-formed, groups rules by area, carries the run properties and the skip reason', () => {
    const xml = readFileSync(join(full(), 'junit.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name) }).parse(xml) as {
      testsuites: Record<string, unknown> & { testsuite: (Record<string, unknown> & { name: string; skipped: string; properties: { property: { name: string; value: string }[] }; testcase: { name: string; failure?: { message: string }; skipped?: { message: string } }[] })[] };
    };
    const suites = parsed.testsuites.testsuite;
    expect(suites.map((s) => s.name)).toEqual(['features', 'plans', 'referrals']);
    expect(parsed.testsuites).toMatchObject({ tests: String(Object.keys(report.rules).length), failures: '2', errors: '0' });
    expect(suites.reduce((sum, s) => sum + Number(s.skipped), 0)).toBe(1);
    // Only the attributes Jenkins' junit-10.xsd allows, the strictest common JUnit reader.
    const attributes = (element: Record<string, unknown>) => Object.entries(element).filter(([, v]) => typeof v === 'string').map(([k]) => k);
    expect(attributes(parsed.testsuites).filter((a) => !['name', 'time', 'tests', 'failures', 'errors'].includes(a))).toEqual([]);
    for (const suite of suites) expect(attributes(suite).filter((a) => !['name', 'tests', 'failures', 'errors', 'skipped', 'time', 'timestamp', 'hostname'].includes(a))).toEqual([]);
    const properties = Object.fromEntries(suites[0]!.properties.property.map((p) => [p.name, p.value]));
    expect(properties).toMatchObject({ seed: '424242', 'target.host': new URL(fake.url).host, 'api.version': '2.4.0', profile, 'suite.version': expect.stringMatching(/^\d+\.\d+\.\d+/) });
    const cases = suites.flatMap((s) => s.testcase);
    expect(cases.find((c) => c.name === `${SKIPPED} (SHOULD)`)?.skipped?.message).toMatch(/^SKIP: needs the tenant to itself/);
    expect(cases.find((c) => c.name === `${MUST_FAULT} (MUST)`)?.failure?.message).toMatch(/^plans\.create: expected an error, got 200/);
  });

  it('report.html, seen in a real browser, shows the counts, the broken rules with their sentences and curls, and filters out passing rules', async (ctx) => {
    const executablePath = BROWSERS.find((path) => existsSync(path));
    if (executablePath === undefined) ctx.skip(`no Chromium at ${BROWSERS.join(' or ')} (install Debian's chromium package; .ci/run does)`);
    const userDataDir = mkdtempSync(join(dir, 'browser-'));
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: executablePath!,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1280, height: 1800 },
    });
    try {
      const page = await context.newPage();
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      const url = pathToFileURL(join(full(), 'report.html')).href;
      await page.goto(url);
      await page.screenshot({ path: join(full(), 'report.png'), fullPage: true });
      expect(requests, 'the page fetches nothing but itself').toEqual([url]);

      expect(await page.locator('#verdict').innerText()).toBe('FAILED');
      expect(await page.locator('#count-FAIL').innerText()).toBe('2');
      expect(await page.locator('#count-PASS').innerText()).toBe(String(report.counts.rules.PASS));
      expect(await page.locator('#count-SKIP').innerText()).toBe('1');
      for (const rule of [MUST_FAULT, SHOULD_FAULT]) {
        const failure = page.locator(`[id="failure-${rule}"]`);
        expect(await failure.isVisible()).toBe(true);
        expect(await failure.locator('blockquote.sentence').innerText()).toBe(quote(rule).replaceAll('`', ''));
        expect(await failure.locator('pre.curl').first().innerText()).toBe(report.rules[rule]!.scenarios[0]!.exchanges!.at(-1)!.curl);
      }

      const visible = (status: string) => page.locator(`tr.rule[data-status="${status}"]:visible`).count();
      expect(await visible('PASS')).toBe(report.counts.rules.PASS);
      await page.locator('#filter-PASS').uncheck();
      expect(await visible('PASS')).toBe(0);
      expect(await visible('FAIL')).toBe(2);
      const total = Object.keys(report.rules).length;
      expect(await page.locator('#shown-count').innerText()).toBe(`${total - report.counts.rules.PASS} of ${total} rules shown`);

      // The digest: one row per failing rule, MUST first, linking to its failure; the skipped rule under its cause; what was left behind.
      expect(await page.locator('#failing tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-rule')))).toEqual([MUST_FAULT, SHOULD_FAULT]);
      await page.locator(`#failing a[href="#failure-${MUST_FAULT}"]`).click();
      expect(page.url()).toBe(`${url}#failure-${MUST_FAULT}`);
      const cause = page.locator('#causes tr.cause[data-status="SKIP"]');
      expect(await cause.innerText()).toMatch(new RegExp(`needs the tenant to itself.*\\s1: ${SKIPPED}$`, 's'));
      await page.locator('#filter-PASS').check();
      await cause.locator(`a[href="#rule-${SKIPPED}"]`).click();
      expect(await page.locator(`[id="rule-${SKIPPED}"]`).isVisible()).toBe(true);
      expect(await page.locator('#left-behind h2').innerText()).toMatch(/^Left behind/);
      // The replay script is folded until opened.
      const replay = page.locator(`[id="failure-${MUST_FAULT}"] details.replay`);
      expect(await replay.locator('pre.replay').isVisible()).toBe(false);
      await replay.locator('summary').click();
      expect((await replay.locator('pre.replay').innerText()).trimEnd()).toBe(report.rules[MUST_FAULT]!.scenarios[0]!.replay!.trimEnd());
    } finally {
      await context.close();
    }
  }, 60_000);

  // The two baseline runs touch different scenarios and namespaces, so they run side by side.
  it.concurrent('a baseline listing one of the two makes the run exit 0 with one known failure', async () => {
    const generated = join(dir, 'generated-baseline.json');
    expect((await cli('baseline', '--from', join(full(), 'report.json'), '--out', generated)).code).toBe(0);
    const written = JSON.parse(readFileSync(generated, 'utf8')) as { format: string; entries: { rule: string }[] };
    expect(written.entries.map((e) => e.rule)).toEqual([SHOULD_FAULT, MUST_FAULT].sort());
    const baseline = join(dir, 'baseline.json');
    writeFileSync(baseline, JSON.stringify({ format: BASELINE_FORMAT, entries: [{ rule: MUST_FAULT, reason: 'vendor ticket 12: empty names are accepted' }] }));

    const known = await cli('run', '--only', MUST_FAULT, SHOULD_FAULT, '--baseline', baseline, '--report-dir', join(dir, 'known'));
    expect(known.code, known.out).toBe(0);
    const report = read(join(dir, 'known', 'report.json'));
    expect(report.counts).toMatchObject({ known: 1, mustFailures: 0, rules: { FAIL: 2 } });
    expect(report.rules[MUST_FAULT]?.known).toEqual({ reason: 'vendor ticket 12: empty names are accepted' });
    expect(known.out).toContain(`${MUST_FAULT} [FAIL (known) MUST]`);
    expect(readFileSync(join(dir, 'known', 'summary.md'), 'utf8')).toContain('1 known failure(s) from the baseline do not fail the run.');
  }, 120_000);

  it.concurrent('a baseline file that does not exist yet (night 1) is an empty one: the run goes on, says how to write it, and writes its four files', async () => {
    const missing = join(dir, 'not-yet-baseline.json');
    const night1 = await cli('run', '--only', PASSING, '--baseline', missing, '--report-dir', join(dir, 'night1'));
    expect(night1.code, night1.out).toBe(0);
    expect(night1.out).toContain(`conformance: baseline ${missing} does not exist yet: the run starts with an empty baseline (no known failures).`);
    expect(night1.out).toContain(`besi-conformance baseline --from <report-dir>/report.json --out ${missing}`);
    for (const file of ['report.json', 'report.html', 'summary.md', 'junit.xml']) expect(existsSync(join(dir, 'night1', file)), file).toBe(true);
    expect(read(join(dir, 'night1', 'report.json')).run.baseline).toBe(missing);
  }, 120_000);

  it.concurrent('a baseline listing a rule that passes makes the run exit 1: remove it from the baseline', async () => {
    const baseline = join(dir, 'stale-baseline.json');
    writeFileSync(baseline, JSON.stringify({ format: BASELINE_FORMAT, entries: [{ rule: PASSING, reason: 'was broken last month' }] }));
    const stale = await cli('run', '--only', PASSING, '--baseline', baseline, '--report-dir', join(dir, 'stale'));
    expect(stale.code, stale.out).toBe(1);
    expect(stale.out).toContain(`${PASSING} is in the baseline but passes now: remove it from the baseline`);
    expect(read(join(dir, 'stale', 'report.json')).baseline?.stale).toEqual([{ rule: PASSING, reason: 'was broken last month' }]);
  }, 120_000);

  it('--rerun-failed runs only the failing scenarios, in a report of its own, merged on request', async () => {
    const rerun = await cli('run', '--rerun-failed', join(full(), 'report.json'), '--merge');
    expect(rerun.code, rerun.out).toBe(1);
    const own = read(join(full(), 'rerun', 'report.json'));
    const scenarios = new Set(Object.values(own.rules).flatMap((r) => r.scenarios.map((s) => s.scenario)));
    expect([...scenarios].sort()).toEqual(['features.duplicate-id', 'plans.name-min-length']);
    expect(own.run.rerunOf).toBe(join(full(), 'report.json'));
    const merged = read(join(full(), 'report.json'));
    expect(merged.rules[PASSING]?.status).toBe('PASS');
    expect(merged.rules[SKIPPED]?.status).toBe('SKIP');
    expect(merged.rules[MUST_FAULT]?.status).toBe('FAIL');
    // Every scenario carrying the skipped rule needs the tenant to itself.
    const skipped = SCENARIOS.filter((scenario) => scenario.rules.includes(SKIPPED)).length;
    // The others carrying the passing rule pass (the fake's two faults are in the two failing ones).
    const passing = SCENARIOS.filter((scenario) => scenario.rules.includes(PASSING) && ![MUST_FAULT, SHOULD_FAULT, SKIPPED].some((rule) => scenario.rules.includes(rule))).length;
    expect(passing).toBeGreaterThan(0);
    expect(merged.counts.scenarios).toEqual({ pass: passing, fail: 2, error: 0, skip: skipped, blocked: 0 });
  }, 120_000);
});

describe('malformed options and URLs', () => {
  // Each stops before anything runs: exit 2 and one line naming what is wrong (1 would say a MUST rule fails).
  const cases: [string, string[], NodeJS.ProcessEnv, RegExp][] = [
    ['BASE_URL that is no URL', ['run'], { BASE_URL: 'not-a-url' }, /^conformance: invalid conformance configuration: BASE_URL: must be an http\(s\) URL$/],
    ['--base-url without a host', ['run', '--base-url', 'http://'], {}, /^conformance: invalid conformance configuration: --base-url: must be an http\(s\) URL$/],
    ['a seed that is no number', ['run', '--seed', 'abc'], {}, /^conformance: error: option '--seed <n>' argument 'abc' is invalid\. must be a non-negative integer/],
    ['a mistyped --only name', ['run', '--only', 'PLAN-NAME-MIN-LENGHT', 'licences'], {}, /^conformance: --only: not a rule ID, area or scenario: PLAN-NAME-MIN-LENGHT \(did you mean PLAN-NAME-MIN-LENGTH, [^)]+\), licences \(did you mean licenses\?\) \(`conformance list` lists them\)$/],
    ['a mistyped profile', ['run', '--profile', 'defualt'], {}, /^conformance: --profile: profile defualt \(.*\) does not exist \(did you mean default\?\)$/],
    ['a report directory that cannot be written', ['run', '--report-dir', '/dev/null/reports'], {}, /^conformance: --report-dir: cannot write reports into \/dev\/null\/reports \(ENOTDIR\)$/],
    ['a re-run of a file that is no report', ['run', '--rerun-failed', fileURLToPath(import.meta.url)], {}, /^conformance: .*cli\.test\.ts is not a report: not JSON/],
  ];
  // In this process (a CLI process costs 2 CPU-s to say one line): the command line given to the
  // CLI's main, what it prints captured, the environment and exit code put back after.
  for (const [what, args, env, line] of cases) {
    it(`${what}: exit 2, one line`, async () => {
      const ran = await inProcess(args, env);
      expect(ran.code, ran.out).toBe(2);
      expect(ran.out.trimEnd().split('\n')).toEqual([expect.stringMatching(line)]);
    });
  }

  it('an unknown option: exit 2 from the process itself, one line', async () => {
    const ran = await cli('run', '--bse-url', 'x');
    expect(ran.code, ran.out).toBe(2);
    expect(ran.out.trimEnd().split('\n')).toEqual([expect.stringMatching(/^conformance: error: unknown option '--bse-url' \(Did you mean --base-url\?\) \(--help lists the options\)$/)]);
  }, 180_000);
});

/** The CLI's main on `args` in this process, with the environment a vendor's CI gives it (cliEnv) and `env`. */
async function inProcess(args: readonly string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  const { main } = await import('../cli.ts');
  const saved = { env: { ...process.env }, exitCode: process.exitCode };
  let out = '';
  const collect = (...parts: unknown[]) => void (out += `${parts.join(' ')}\n`);
  const write = (chunk: string | Uint8Array) => ((out += chunk.toString()), true);
  const spies = [vi.spyOn(console, 'log').mockImplementation(collect), vi.spyOn(console, 'error').mockImplementation(collect), vi.spyOn(process.stdout, 'write').mockImplementation(write), vi.spyOn(process.stderr, 'write').mockImplementation(write)];
  const given = { ...cliEnv(), ...env };
  try {
    for (const name of Object.keys(process.env)) delete process.env[name];
    Object.assign(process.env, given);
    process.exitCode = undefined;
    await main([process.execPath, CLI.at(-1)!, ...args]);
    return { code: Number(process.exitCode ?? 0), out };
  } finally {
    for (const spy of spies) spy.mockRestore();
    for (const name of Object.keys(process.env)) delete process.env[name];
    Object.assign(process.env, saved.env);
    process.exitCode = saved.exitCode;
  }
}

describe('an interrupted run', () => {
  it('leaves four final files marked interrupted (summary.md says so at the top, junit.xml has an error case), and exits 2', async () => {
    const out = join(dir, 'interrupted');
    const child = spawn(CLI[0], [...CLI.slice(1), 'run', '--only', 'plans', '--report-dir', out], { cwd: ROOT, env: cliEnv(), stdio: 'ignore' });
    let done = false;
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code))).finally(() => (done = true));
    // The reporter writes a first (empty, running) report when the run starts; interrupt it then.
    while (!existsSync(join(out, 'report.json')) && !done) await new Promise((r) => setTimeout(r, 20));
    expect(done, 'the run ended before it could be interrupted').toBe(false);
    child.kill('SIGTERM');
    expect(await exited).toBe(2);
    const report = read(join(out, 'report.json'));
    expect(report).toMatchObject({ complete: false, run: { result: 'interrupted' } });
    const junit = readFileSync(join(out, 'junit.xml'), 'utf8');
    expect(XMLValidator.validate(junit)).toBe(true);
    expect(junit).toContain('<property name="complete" value="false"/>');
    expect(junit).toMatch(/<testcase classname="run" name="interrupted \(SIGTERM\)"/);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toMatch(/^# Conformance: UNDECIDED\n\n> \*\*Interrupted\*\* \(SIGTERM after [\d.]+ s\): \d+ of \d+ scenario\(s\) ran/);
    expect(report.run.interrupted).toMatchObject({ cause: 'SIGTERM' });
  }, 120_000);
});
