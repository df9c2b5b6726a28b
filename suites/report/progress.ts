/**
 * Progress of a run on the console, by area (a scenario file): on a terminal one line rewritten as
 * scenarios finish; otherwise (a pipe, CI) one plain line per area when it is done, no colour.
 */
import { basename } from 'node:path';
import { RULE_STATUSES, type RuleStatus, type ScenarioStatus } from './schema.ts';

type Counts = Record<ScenarioStatus, number>;

const COLOURS: Readonly<Record<RuleStatus, string>> = { PASS: '32', FAIL: '31', ERROR: '35', BLOCKED: '33', SKIP: '90' };

/** `12 PASS, 1 FAIL, …`: every status, in one order everywhere. */
export function formatProgress(counts: Readonly<Record<RuleStatus, number>>, colour = false): string {
  const total = RULE_STATUSES.reduce((sum, s) => sum + counts[s], 0);
  const parts = RULE_STATUSES.map((s) => {
    const text = `${counts[s]} ${s}`;
    return colour && counts[s] > 0 ? `\u001b[${COLOURS[s]}m${text}\u001b[39m` : text;
  });
  return `${total} rules: ${parts.join(', ')}`;
}

function scenarioTotal(c: Counts): number {
  return c.pass + c.fail + c.error + c.skip + c.blocked;
}

export function areaOf(file: string): string {
  return basename(file).replace(/(\.test)?\.[cm]?[jt]s$/, '');
}

export interface ProgressOptions {
  readonly mode: 'live' | 'lines' | 'none';
  readonly colour: boolean;
  readonly print: (line: string) => void;
}

export class ProgressPrinter {
  readonly #options: ProgressOptions;
  readonly #areas = new Map<string, Counts>();
  #live = false;

  constructor(options: ProgressOptions) {
    this.#options = options;
  }

  scenario(file: string, status: ScenarioStatus): void {
    const area = areaOf(file);
    const counts = this.#areas.get(area) ?? { pass: 0, fail: 0, error: 0, skip: 0, blocked: 0 };
    counts[status]++;
    this.#areas.set(area, counts);
    if (this.#options.mode !== 'live') return;
    const total = [...this.#areas.values()].reduce((sum, c) => sum + scenarioTotal(c), 0);
    process.stdout.write(`\r\u001b[2K${this.#line(area, counts)}  (${total} scenarios done)`);
    this.#live = true;
  }

  moduleEnd(file: string): void {
    const area = areaOf(file);
    const counts = this.#areas.get(area);
    if (!counts || this.#options.mode === 'none') return;
    this.end();
    this.#options.print(this.#line(area, counts));
  }

  /** Ends a live line, so what follows starts on its own line. */
  end(): void {
    if (!this.#live) return;
    process.stdout.write('\r\u001b[2K');
    this.#live = false;
  }

  #line(area: string, c: Counts): string {
    const paint = (code: string, text: string, n: number) => (this.#options.colour && n > 0 ? `\u001b[${code}m${text}\u001b[39m` : text);
    const blocked = c.blocked > 0 ? `, ${paint('33', `${c.blocked} blocked`, c.blocked)}` : '';
    return `${area.padEnd(12)} ${String(scenarioTotal(c)).padStart(3)} scenarios: ${paint('32', `${c.pass} pass`, c.pass)}, ${paint('31', `${c.fail} fail`, c.fail)}, ${paint('35', `${c.error} error`, c.error)}, ${paint('90', `${c.skip} skip`, c.skip)}${blocked}`;
  }
}
