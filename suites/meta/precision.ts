/**
 * What the precision meta-test (can-fail.test.ts) holds the suite to: with each single fault, the
 * rules that FAIL are exactly the broken rule and the rules declared here as genuinely depending
 * on it. See /work/briefing/ATTRIBUTION.md (the conversion recipe) for how to extend both lists.
 */
import { FAULTS } from '../../fake-server/faults/index.ts';
import type { RuleId } from '../../spec/rules/catalogue.ts';
import { SCENARIOS_BY_FILE, type ScenarioFile } from '../scenarios/index.ts';

/**
 * Scenario files whose assertions are all attributed to rules AND whose faults all give an exact
 * FAIL set. envelope is attributed too, but some of its faults still fail a second rule (run
 * `PRECISION_RULES=CONV-,AUTH-,VER-,ERR-` to see which); it joins this list once exact, so that
 * npm test holds it to it.
 *
 * Scenario files whose assertions are all attributed to rules. Precision is checked for the faults
 * whose rule only these files carry; the others keep the older check (some scenario carrying the
 * rule fails). Extend as files are converted; when every file is here, PRECISION_RULES defaults to all.
 */
export const CONVERTED_FILES: readonly ScenarioFile[] = ['customers', 'licenses', 'licenses-gaps', 'listings-gaps', 'plans', 'features', 'entities', 'billing', 'preview', 'referrals', 'balances-mutants', 'entities-mutants'];

export interface Dependent {
  readonly rule: RuleId;
  /** Why breaking the key rule must also fail this one (not just "the scenario is shared"). */
  readonly why: string;
}

/** Broken rule → the other rules that genuinely fail with it. Keep it short; every entry needs its reason. */
export const DEPENDENT_RULES: Partial<Record<RuleId, readonly Dependent[]>> = {
  'PLAN-FREE-TRIAL-WIRE': [
    {
      rule: 'CONV-SNAKE-CASE-REQUEST',
      why: 'ignoring `free_trial` is ignoring a request field spelled snake_case: the trial sent in snake_case does not take effect',
    },
  ],
  'CUS-GET-OR-CREATE-NEW': [
    {
      rule: 'PLAN-AUTO-ENABLE',
      why: 'a new customer created without its auto-enable plans is a plan not attached automatically at customer creation: the same statement from the plan side',
    },
  ],
  'PLAN-AUTO-ENABLE': [
    {
      rule: 'CUS-GET-OR-CREATE-NEW',
      why: 'customers.get_or_create creating a customer "with its auto-enable plans" is the same statement as the plan attaching automatically at customer creation',
    },
  ],
  // The umbrella of the reference's bounds and enumerations, against the rules stating one of them:
  // a target repairing every such value breaks each of those statements itself.
  'ERR-OUT-OF-BOUNDS-REFERENCE': [
    {
      rule: 'FEAT-AI-DEFAULT-MARKUP-MIN',
      why: "the umbrella covers every bound on a field whose wire name is the reference's, the AI default markup among them: clamping -101 to -100 is accepting a markup below FEAT-AI-DEFAULT-MARKUP-MIN's minimum",
    },
    {
      rule: 'PREV-CANCEL-ACTION-ENUM',
      why: "cancel_action's enumeration is the reference's: replacing an unknown action by cancel_immediately is accepting a value outside PREV-CANCEL-ACTION-ENUM's enumeration",
    },
  ],
  'CONV-SNAKE-CASE-REQUEST': [
    {
      rule: 'PLAN-FREE-TRIAL-WIRE',
      why: 'the converse of PLAN-FREE-TRIAL-WIRE → CONV-SNAKE-CASE-REQUEST: reading freeTrial instead of free_trial is not taking the trial under its snake_case wire name',
    },
  ],
};

/** The FAIL set a single fault of `rule` must produce (within `visible` rules, when given). */
export function expectedFailures(rule: string, visible?: ReadonlySet<string>): string[] {
  const dependents = (DEPENDENT_RULES[rule as RuleId] ?? []).map((d) => d.rule).filter((r) => visible === undefined || visible.has(r));
  return [rule, ...dependents].sort();
}

/** What the precision check covers: which faults, and whose FAILs count. */
export interface PrecisionScope {
  readonly rules: ReadonlySet<string>;
  /**
   * Scenario IDs whose FAILs count, and the rules that can be seen; undefined: every scenario and
   * rule. Until every file is converted, the default counts only converted files, whose verdicts
   * are attributed (an unconverted scenario's FAIL says little about which rule broke).
   */
  readonly visible?: { readonly scenarios: ReadonlySet<string>; readonly rules: ReadonlySet<string> };
}

/**
 * `PRECISION_RULES` = `all`, or comma-separated rule-ID prefixes (`LIC-,CUS-SHAPE`): those faults,
 * FAILs of every scenario counted. Unset: the faults of rules carried only by CONVERTED_FILES, FAILs
 * of those files' scenarios counted.
 */
export function precisionScope(env: NodeJS.ProcessEnv = process.env): PrecisionScope {
  const raw = env['PRECISION_RULES']?.trim();
  const faults = [...FAULTS.keys()];
  if (raw === 'all') return { rules: new Set(faults) };
  if (raw !== undefined && raw !== '') {
    const prefixes = raw.split(',').map((p) => p.trim()).filter((p) => p !== '');
    return { rules: new Set(faults.filter((rule) => prefixes.some((p) => rule.startsWith(p)))) };
  }
  const converted = new Set<string>(CONVERTED_FILES);
  const files: [string, readonly { readonly id: string; readonly rules: readonly string[] }[]][] = Object.entries(SCENARIOS_BY_FILE);
  const carriedElsewhere = new Set(files.filter(([file]) => !converted.has(file)).flatMap(([, scenarios]) => scenarios.flatMap((s) => s.rules)));
  const here = files.filter(([file]) => converted.has(file)).flatMap(([, scenarios]) => scenarios);
  const carriedHere = new Set(here.flatMap((s) => s.rules));
  return {
    rules: new Set(faults.filter((rule) => carriedHere.has(rule) && !carriedElsewhere.has(rule))),
    visible: { scenarios: new Set(here.map((s) => s.id)), rules: carriedHere },
  };
}
