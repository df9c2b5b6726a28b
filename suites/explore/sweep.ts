/**
 * Can exploration fail, and does it name the rule a scenario would? For each fault of the fake
 * (fake-server/faults/, one rule broken on purpose), exploration alone, no scenario, runs against a
 * fake with only that fault, and records whether it finds a difference and under which rule. The
 * faults it does not find are listed in `unfound-faults.json`, each with the reason, and so are
 * those it finds under another rule than their own (`misnamed`, with that rule); tests keep the
 * list current (the can-fail test of the scenarios and the mutation triage's equivalent mutants are
 * the models).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createFakeApp } from '../../fake-server/app.ts';
import { hashSeed } from '../../fixtures/random.ts';
import { FAULTS, faultsFor } from '../../fake-server/faults/index.ts';
import { createNamespace } from '../framework/namespace.ts';
import { explore } from './explorer.ts';
import { inProcessTarget } from './targets.ts';

export const UNFOUND_FILE = fileURLToPath(new URL('./unfound-faults.json', import.meta.url));

export const UnfoundFaults = z.strictObject({
  /** The budget every fault was explored with: this many programs of at most `maxSteps` calls, from `seed`. */
  runs: z.int().positive(),
  maxSteps: z.int().positive(),
  seed: z.int(),
  entries: z.array(z.strictObject({ rule: z.string(), reason: z.string().min(10) })),
  /** Faults exploration finds, but names under another rule (attribution.ts), with that rule and why. */
  misnamed: z.array(z.strictObject({ rule: z.string(), named: z.string(), reason: z.string().min(10) })),
});
export type UnfoundFaults = z.infer<typeof UnfoundFaults>;

const REASON_TO_WRITE = 'Reason to write by hand: ';

/**
 * What `--update-unfound` writes as the reason of an entry no one has explained yet: a request to a
 * person, which unfound-faults.test.ts refuses until it is replaced by the reason.
 */
export const reasonToWrite = (what: string): string => `${REASON_TO_WRITE}${what}`;
export const isReasonToWrite = (reason: string): boolean => reason.startsWith(REASON_TO_WRITE);

export function readUnfound(path = UNFOUND_FILE): UnfoundFaults {
  return UnfoundFaults.parse(JSON.parse(readFileSync(path, 'utf8')));
}

export interface FaultOutcome {
  readonly fault: string;
  readonly found: boolean;
  /** The rule the first finding charged. */
  readonly rule?: string;
  /** How that rule was named (attribution.ts): by a fault of the catalogue that reproduces the difference, or by the owners. */
  readonly named?: 'fault' | 'owner';
  readonly programs: number;
  readonly ms: number;
}

export interface SweepOptions {
  readonly faults?: readonly string[];
  readonly runs: number;
  readonly maxSteps: number;
  readonly seed: number;
  /**
   * Each fault left out of the catalogue that names findings (attribution.ts), so it stands for a bug
   * nobody foresaw: the figure is how often such a bug is named under the rule it breaks.
   */
  readonly unforeseen?: boolean;
  readonly onOutcome?: (outcome: FaultOutcome) => void;
}

/** Re-runs to shrink the finding of each fault (a run's exploration allows 60). */
const SWEEP_SHRINK_RUNS = 30;

/**
 * Explores a fake with one fault; found when any difference shows (the first is enough). Each fault
 * gets programs of its own (the seed and the fault's ID), so the figure measures the generators, not
 * one sample of programs.
 */
export async function exploreFault(fault: string, options: Omit<SweepOptions, 'faults' | 'onOutcome'>): Promise<FaultOutcome> {
  const started = Date.now();
  const seed = hashSeed(options.seed, fault);
  const app = createFakeApp({ faults: faultsFor([fault]) });
  const target = inProcessTarget(app, createNamespace({ prefix: 'conf', seed }));
  // Shrunk and minimised as in a conformance run, so the rule is named from the program a run would report.
  const catalogue = options.unforeseen ? { catalogue: [...FAULTS.values()].filter((known) => known.rule !== fault) } : {};
  const result = await explore(target, { seed, runs: options.runs, maxSteps: options.maxSteps, maxFindings: 1, shrinkRuns: SWEEP_SHRINK_RUNS, ...catalogue });
  const finding = result.findings[0];
  return { fault, found: finding !== undefined, ...(finding ? { rule: finding.rule } : {}), ...(finding?.attribution ? { named: finding.attribution.how } : {}), programs: result.programs, ms: Date.now() - started };
}

export async function sweepFaults(options: SweepOptions): Promise<FaultOutcome[]> {
  const faults = options.faults ?? [...FAULTS.keys()];
  const outcomes: FaultOutcome[] = [];
  for (const fault of faults) {
    const outcome = await exploreFault(fault, options);
    outcomes.push(outcome);
    options.onOutcome?.(outcome);
  }
  return outcomes;
}
