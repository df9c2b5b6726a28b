/**
 * Runs the conformance suite the way a user does, in a child process, against a given target, and
 * collects what the user would see: exit code, wall time, console, report.json and junit.xml.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConformanceReport } from '../framework/reporter.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');

export interface ConformanceRun {
  /** null when the child had to be killed. */
  readonly exitCode: number | null;
  readonly wallMs: number;
  /** stdout and stderr, interleaved as they came. */
  readonly console: string;
  readonly report: ConformanceReport | undefined;
  /** report.json as written (for secret checks on the raw text). */
  readonly reportText: string;
  readonly junit: string;
}

export interface ConformanceRunOptions {
  readonly env: Readonly<Record<string, string>>;
  /** Scenario files, relative to the project root. */
  readonly files: readonly string[];
  /** The child is killed after this long; the run then has exit code null. */
  readonly killAfterMs: number;
}

/** Variables of the test run that must not leak into the child (it is a run of its own). */
const INHERITED_NOT = /^(VITEST|BASE_URL$|API_KEY$|OTHER_TENANT_API_KEY$|CONFORMANCE_|REPORT_DIR$|NODE_ENV$|TEST$|MODE$|DEV$|PROD$|SSR$)/;

export async function runConformance(options: ConformanceRunOptions): Promise<ConformanceRun> {
  const reportDir = mkdtempSync(join(tmpdir(), 'conformance-hostile-'));
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !INHERITED_NOT.test(name)));
  const env = { ...inherited, REPORT_DIR: reportDir, ...options.env };
  const started = performance.now();
  const child = spawn(process.execPath, [VITEST, 'run', '--project', 'conformance', ...options.files], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const killer = setTimeout(() => {
    // The child leads its own process group (detached): end it and whatever it started.
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }, options.killAfterMs);
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clearTimeout(killer);
  const wallMs = Math.round(performance.now() - started);
  try {
    const read = (name: string) => (existsSync(join(reportDir, name)) ? readFileSync(join(reportDir, name), 'utf8') : '');
    const reportText = read('report.json');
    return {
      exitCode,
      wallMs,
      console: output,
      report: reportText === '' ? undefined : (JSON.parse(reportText) as ConformanceReport),
      reportText,
      junit: read('junit.xml'),
    };
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
}
