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
import { CLI_COMMAND } from '../conformance-project.ts';
import type { ConformanceReport } from '../report/schema.ts';
import { childEnvironment } from '../meta/child-env.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

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

export async function runConformance(options: ConformanceRunOptions): Promise<ConformanceRun> {
  const reportDir = mkdtempSync(join(tmpdir(), 'conformance-hostile-'));
  const env = { ...childEnvironment(), ...options.env };
  const only = options.only ?? [];
  const args = [...CLI_COMMAND, 'run', '--report-dir', reportDir, ...(only.length > 0 ? ['--only', ...only] : [])];
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
    // The report files only: the run may also leave folders there (the journal's state/, the exploration's explore/).
    const files = Object.fromEntries(readdirSync(reportDir, { withFileTypes: true }).filter((entry) => entry.isFile()).map(({ name }) => [name, readFileSync(join(reportDir, name), 'utf8')]));
    const reportText = files['report.json'];
    return { exitCode, console: output, report: reportText === undefined ? undefined : (JSON.parse(reportText) as ConformanceReport), files };
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
}
