/**
 * Runs the conformance suite the way a user does (`npm run conformance -- run …`, i.e. the CLI in
 * suites/cli.ts) in a child process against a given target, and collects what the user would see:
 * exit code, wall time, console, and every report file.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConformanceReport } from '../report/schema.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'suites/cli.ts');

export interface ConformanceRun {
  /** null when the child had to be killed. */
  readonly exitCode: number | null;
  /** stdout and stderr, interleaved as they came. */
  readonly console: string;
  readonly report: ConformanceReport | undefined;
  /** Every file the run wrote into its report directory (report.json, junit.xml, report.html, summary.md), by name. */
  readonly files: Readonly<Record<string, string>>;
}

export interface ConformanceRunOptions {
  readonly env: Readonly<Record<string, string>>;
  /** `--only`: rule IDs, areas or scenario IDs; empty or absent: the whole suite. */
  readonly only?: readonly string[];
  /** The child is killed after this long; the run then has exit code null. */
  readonly killAfterMs: number;
}

/** Variables of the test run that must not leak into the child (it is a run of its own). */
const INHERITED_NOT = /^(VITEST|BASE_URL$|API_KEY$|OTHER_TENANT_API_KEY$|CONFORMANCE_|REPORT_DIR$|NODE_ENV$|TEST$|MODE$|DEV$|PROD$|SSR$)/;

export async function runConformance(options: ConformanceRunOptions): Promise<ConformanceRun> {
  const reportDir = mkdtempSync(join(tmpdir(), 'conformance-hostile-'));
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !INHERITED_NOT.test(name)));
  const env = { ...inherited, ...options.env };
  const only = options.only ?? [];
  const args = ['--import', 'tsx', CLI, 'run', '--report-dir', reportDir, ...(only.length > 0 ? ['--only', ...only] : [])];
  const child = spawn(process.execPath, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const killer = setTimeout(() => {
    // The child leads its own process group (detached): end it and whatever it started.
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }, options.killAfterMs);
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clearTimeout(killer);
  try {
    // The report files (state/ beside them holds the run journal).
    const files = Object.fromEntries(readdirSync(reportDir, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => [e.name, readFileSync(join(reportDir, e.name), 'utf8')]));
    const reportText = files['report.json'];
    return { exitCode, console: output, report: reportText === undefined ? undefined : (JSON.parse(reportText) as ConformanceReport), files };
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
}
