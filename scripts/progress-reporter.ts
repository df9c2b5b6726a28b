/**
 * A vitest reporter beside the default one (vitest.config.ts): whenever nothing has been printed
 * for `silenceMs`, it prints one line naming the files still running, how long each has run and
 * how many of its tests are done. Without it a log (CI, or `npm test | tee`) shows a file only when
 * it ends, and a file of a few minutes (the fault sweeps, the fuzzers, the packaged install) left
 * it silent that long. A terminal shows vitest's own live summary instead, so it prints nothing there.
 */
import type { Reporter, TestModule, Vitest } from 'vitest/node';

export interface ProgressReporterOptions {
  /** Print after this long without output (default 20 s, so a log never goes 30 s silent). */
  readonly silenceMs?: number;
  /** How often to look (default 2 s). */
  readonly checkMs?: number;
  /** Print even on a terminal (tests). */
  readonly always?: boolean;
  readonly now?: () => number;
  readonly write?: (line: string) => void;
}

/** The parts of a vitest TestModule read here. */
type RunningModule = Pick<TestModule, 'moduleId' | 'relativeModuleId' | 'children'>;

/** 95 s → `1m35s`, 9 s → `9s`. */
export function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

export class ProgressReporter implements Reporter {
  readonly #silenceMs: number;
  readonly #checkMs: number;
  readonly #always: boolean;
  readonly #now: () => number;
  #write: ((line: string) => void) | undefined;
  /** Running files by path: the latest report of each (vitest reports a file anew once collected) and when it started. */
  readonly #running = new Map<string, { module: RunningModule; started: number }>();
  #lastOutput = 0;
  #runStarted = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: ProgressReporterOptions = {}) {
    this.#silenceMs = options.silenceMs ?? 20_000;
    this.#checkMs = options.checkMs ?? 2_000;
    this.#always = options.always ?? false;
    this.#now = options.now ?? Date.now;
    this.#write = options.write;
  }

  onInit(vitest: Vitest): void {
    this.#write ??= (line) => vitest.logger.log(line);
  }

  onTestRunStart(): void {
    if (!this.#always && process.stdout.isTTY) return;
    this.#runStarted = this.#lastOutput = this.#now();
    this.#timer = setInterval(() => this.check(), this.#checkMs);
    this.#timer.unref();
  }

  onTestModuleQueued(module: TestModule): void {
    this.#running.set(module.moduleId, { module, started: this.#now() });
  }

  onTestModuleCollected(module: TestModule): void {
    const running = this.#running.get(module.moduleId);
    this.#running.set(module.moduleId, { module, started: running?.started ?? this.#now() });
  }

  onTestModuleEnd(module: TestModule): void {
    this.#running.delete(module.moduleId);
    this.#lastOutput = this.#now();
  }

  onUserConsoleLog(): void {
    this.#lastOutput = this.#now();
  }

  onTestRunEnd(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#running.clear();
  }

  /** Prints the line if the output has been silent long enough (the timer calls it). */
  check(): void {
    const now = this.#now();
    if (this.#running.size === 0 || now - this.#lastOutput < this.#silenceMs) return;
    this.#lastOutput = now;
    const files = [...this.#running.values()].map(({ module, started }) => {
      const tests = [...module.children.allTests()];
      const done = tests.filter((test) => test.result().state !== 'pending').length;
      const count = tests.length === 0 ? 'loading' : `${done} of ${tests.length} tests done`;
      return `${module.relativeModuleId} (${count}, ${formatElapsed(now - started)})`;
    });
    this.#write?.(`… ${formatElapsed(now - this.#runStarted)} into the run, still running: ${files.join('; ')}`);
  }
}

/**
 * For a long test whose own count a log should show (programs explored; the reporter's line counts
 * tests): call the returned function once per unit of work; it prints `<label>: <done> of <total>
 * <unit> (<elapsed>)` at most every `everyMs`, and at the last.
 */
export function progressCounter(label: string, total: number, unit: string, options: { everyMs?: number; now?: () => number; write?: (line: string) => void } = {}): () => void {
  const now = options.now ?? Date.now;
  const write = options.write ?? ((line: string) => console.log(line));
  const everyMs = options.everyMs ?? 10_000;
  const started = now();
  let shown = started;
  let done = 0;
  return () => {
    done++;
    const at = now();
    if (at - shown < everyMs && done !== total) return;
    shown = at;
    write(`${label}: ${done} of ${total} ${unit} (${formatElapsed(at - started)})`);
  };
}
