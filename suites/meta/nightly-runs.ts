/**
 * Nightly runs as a CI job makes them, for the meta-tests that hold a night's report to the truth:
 * the command lines of the docs' CI examples (the fenced blocks tagged ```yaml ci-nightly in
 * README.md or docs/*.md, whichever holds them), run by bash in the repository against a fake given
 * by URL, and stopped the ways a CI timeout stops a job: SIGTERM to the process group, SIGKILL of
 * the runner, or the run's own deadline.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { blocksOf, DOCS } from '../../scripts/docs.ts';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { journalPath, readJournal } from '../framework/journal.ts';
import { createNamespace } from '../framework/namespace.ts';
import type { ConformanceReport } from '../report/schema.ts';
import { childEnvironment } from './child-env.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The flag of a fenced YAML block that marks a CI example whose command lines the tests run (```yaml ci-nightly). */
export const CI_FLAG = 'ci-nightly';

/** Every ```yaml ci-nightly block of README.md and docs/*.md: where it is, and its text. */
export function ciBlocks(): { readonly file: string; readonly text: string }[] {
  return DOCS.flatMap((file) => blocksOf(file).flatMap((block) => (block.lang === 'yaml' && block.flags.has(CI_FLAG) ? [{ file, text: block.code }] : [])));
}

/** The conformance command lines of a CI block (a `run:` step or a `script:` item), as written. */
export function conformanceLines(block: string): string[] {
  return block
    .split('\n')
    .map((line) => /^\s*(?:-\s+)?(?:run:\s+)?(npm run conformance .*|npx besi-conformance .*)$/.exec(line)?.[1]?.trim())
    .filter((line): line is string => line !== undefined);
}

/** A command line as the CI job runs it against `url`: its matrix target substituted (GitHub's expression, GitLab's variable). */
export function forTarget(line: string, url: string): string {
  return line.replaceAll('${{ matrix.target }}', url).replaceAll('$TARGET', url);
}

/** How a night ends: on its own, or stopped. */
export type Stop =
  | { readonly kind: 'none' }
  /** SIGTERM to the whole process group (a CI timeout, `kill -- -PGID`) once the journal holds `afterMade` made records. */
  | { readonly kind: 'sigterm-group'; readonly afterMade: number }
  /** SIGKILL of the node process running the CLI, alone, once the journal holds `afterMade` made records. */
  | { readonly kind: 'sigkill-runner'; readonly afterMade: number }
  /** The run's own deadline (CONFORMANCE_RUN_TIMEOUT_MS). */
  | { readonly kind: 'deadline'; readonly ms: number };

export interface Night {
  readonly exitCode: number | null;
  readonly console: string;
  /** Whether the stop happened (a run may end before the journal reaches the point). */
  readonly stopped: boolean;
  readonly report: ConformanceReport | undefined;
  readonly files: Readonly<Record<string, string>>;
  readonly ms: number;
}

/** The journal a reuse namespace's runs keep in `stateDir`. */
export function reuseJournal(stateDir: string, name: string): string {
  return journalPath(stateDir, createNamespace({ prefix: 'conf', seed: 0, reuse: name }).root);
}

/** Records the journal says may remain, as `<kind> <id>`, sorted. */
export function outstanding(journal: string): string[] {
  return readJournal(journal)
    .filter((r) => r.state !== 'removed')
    .map((r) => `${r.entry.kind} ${r.entry.id}`)
    .sort();
}

/**
 * Runs `line` with bash in the repository (as a CI runner does), in a process group of its own,
 * with `env` over this process's environment (less vitest's), reports in `reportDir`. Resolves once
 * every process of the group is gone.
 */
export async function runNight(line: string, options: { readonly env: Readonly<Record<string, string>>; readonly reportDir: string; readonly journal: string; readonly stop: Stop }): Promise<Night> {
  const started = Date.now();
  const env = { ...childEnvironment(), REPORT_DIR: options.reportDir, ...options.env, ...(options.stop.kind === 'deadline' ? { CONFORMANCE_RUN_TIMEOUT_MS: String(options.stop.ms) } : {}) };
  const child = spawn('bash', ['-c', line], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const group = child.pid!;
  let stopped = false;
  const stop = options.stop;
  const watcher =
    stop.kind === 'sigterm-group' || stop.kind === 'sigkill-runner'
      ? setInterval(() => {
          if (stopped || made(options.journal) < stop.afterMade) return;
          stopped = true;
          if (stop.kind === 'sigterm-group') signalGroup(group, 'SIGTERM');
          else for (const pid of runnersIn(group)) process.kill(pid, 'SIGKILL');
        }, 100)
      : undefined;
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clearInterval(watcher);
  // A worker the runner left must be gone too before anyone looks at the target.
  while (groupAlive(group)) await new Promise((resolve) => setTimeout(resolve, 100));
  const dir = existsSync(join(options.reportDir, 'only')) ? join(options.reportDir, 'only') : options.reportDir;
  const files = existsSync(dir) ? Object.fromEntries(readdirSync(dir).filter((f) => /\.(json|xml|md|html)$/.test(f)).map((f) => [f, readFileSync(join(dir, f), 'utf8')])) : {};
  const report = files['report.json'] === undefined ? undefined : (JSON.parse(files['report.json']) as ConformanceReport);
  return { exitCode, console: output, stopped: stop.kind === 'deadline' ? report?.run.interrupted?.cause === 'deadline' : stopped, report, files, ms: Date.now() - started };
}

/** Records the journal has seen made so far (however they ended since). */
function made(journal: string): number {
  if (!existsSync(journal)) return 0;
  return readFileSync(journal, 'utf8').split('\n').filter((l) => l.startsWith('{"s":"made"')).length;
}

function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    // already gone
  }
}

function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

/** The node processes of a process group running the conformance CLI's `run` (Linux: /proc). */
function runnersIn(group: number): number[] {
  return readdirSync('/proc').flatMap((name) => {
    if (!/^\d+$/.test(name)) return [];
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      // The CLI itself (suites/cli.mjs, or suites/cli.ts under tsx), not npm's process or tsx's wrapper.
      const cli = cmdline.some((arg) => arg.endsWith('suites/cli.mjs') || arg.endsWith('suites/cli.ts'));
      const wrapper = cmdline.some((arg) => arg.endsWith('/tsx') || arg.endsWith('tsx/dist/cli.mjs'));
      return pgrp === group && cli && !wrapper && cmdline.includes('run') && cmdline[0]!.endsWith('node') ? [Number(name)] : [];
    } catch {
      return [];
    }
  });
}
