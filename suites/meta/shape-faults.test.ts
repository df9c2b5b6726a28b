/**
 * One missing field shows up as one FAIL. For each operation with a wire shape, a fake that leaves
 * one required top-level field out of that operation's successful answers must make exactly the
 * operation's shape rule FAIL: every other rule PASSes or is BLOCKED (a scenario that needs the field
 * stops), none FAILs and none ends in ERROR, except a rule the field itself is about (RuleDef.fields:
 * `version_slug` is VER-PLAN-SLUG-DEFAULT's), whose own deviation it is. A fake that adds a field to every answer must fail no
 * rule at all: the document lists the fields an answer carries, not that there are no others (where
 * it does say "only", a fault of the catalogue covers it: ENT-EMBEDDED-SUBSCRIPTION-FIELDS).
 *
 * Which field is left out: by default one per operation, drawn from the test seed (printed; `TEST_SEED=n`
 * replays it); `SHAPE_FIELDS=all` tries every required field of every operation (about 160 runs).
 * Against which scenarios (`PRECISION_SWEEP`, precision.ts): under `full` (`npm run test:full`) every
 * scenario that calls the operation; under `checked` (`npm test`) those deciding a rule of the field
 * itself and OMISSION_SAMPLE others that call it, drawn by the test seed, so that the shape rule's
 * FAIL is always proven and the precision is checked on a sample that changes with the seed.
 */
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fault } from '../../fake-server/faults/fault.ts';
import { operations, type OperationName } from '../../spec/operations.ts';
import { RULES, type RuleId } from '../../spec/rules/catalogue.ts';
import type { RuleDef } from '../../spec/rules/rule.ts';
import { hashSeed, testSeed } from '../../fixtures/random.ts';
import { precisionSweep } from './precision.ts';
import { SCENARIOS } from '../scenarios/index.ts';
import { failSet, healthyRun, otherFailures, runAgainstFake, type AnyScenario } from './against-fake.ts';

const seed = testSeed();
const everyField = process.env['SHAPE_FIELDS'] === 'all';
const sweep = precisionSweep();

/** Under the checked sweep, the scenarios calling the operation an omission runs besides those deciding a rule of the field (drawn by the test seed). */
const OMISSION_SAMPLE = 12;

/** The keys an object response schema requires (those a missing value does not satisfy). */
function requiredKeys(schema: z.ZodType): string[] {
  if (!(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([, field]) => !field.safeParse(undefined).success)
    .map(([key]) => key);
}

interface Omission {
  readonly operation: OperationName;
  readonly field: string;
  readonly shapeRule: string;
}

function omissions(): Omission[] {
  return Object.values(operations).flatMap((op) => {
    const keys = requiredKeys(op.response as z.ZodType);
    if (keys.length === 0) return [];
    const chosen = everyField ? keys : [keys[hashSeed(seed, op.name) % keys.length]!];
    return chosen.map((field) => ({ operation: op.name as OperationName, field, shapeRule: op.shapeRule }));
  });
}

/** The rules whose own field (RuleDef.fields, a top-level one or under it) an omission removes, in an answer of their operation. */
function ownFieldRules({ operation, field }: Omission): string[] {
  const rules: readonly RuleDef[] = RULES;
  return rules.filter((rule) => rule.operations.includes(operation) && (rule.fields ?? []).some((f) => f === field || f.startsWith(`${field}.`))).map((rule) => rule.id);
}

function omitting({ operation, field, shapeRule }: Omission): Fault {
  return {
    rule: shapeRule as RuleId,
    breaks: `${operation} answers without \`${field}\``,
    output: (name, body) => {
      if (name !== operation || body === null || typeof body !== 'object') return body;
      const { [field]: _left, ...rest } = body as Record<string, unknown>;
      return rest;
    },
  };
}

const EXTRA_FIELD = 'besi_extra_field';
const addingAField: Fault = {
  rule: 'CONV-SNAKE-CASE-REQUEST',
  breaks: `every successful answer carries one more top-level field, \`${EXTRA_FIELD}\``,
  output: (_name, body) => (body !== null && typeof body === 'object' && !Array.isArray(body) ? { ...body, [EXTRA_FIELD]: 'extra' } : body),
};

describe('a field left out of one answer fails only that answer\'s shape rule; an added field fails nothing', () => {
  const cases = omissions();
  /** Scenario → the operations it called against the healthy fake. */
  const operationsOf = new Map<string, ReadonlySet<string>>();

  beforeAll(async () => {
    for (const outcome of await healthyRun()) operationsOf.set(outcome.scenario, new Set(outcome.evidence.map((e) => e.label)));
  }, 300_000);

  afterAll(() => {
    const against = sweep === 'full' ? 'every scenario calling its operation' : `a sample of ${OMISSION_SAMPLE} scenarios calling its operation, npm run test:full for all`;
    console.log(`shape faults: ${cases.length} fields left out, each against ${against} (seed ${seed}${everyField ? ', every field' : ''}; TEST_SEED=${seed} replays them)`);
  });

  /** The scenarios an omission runs: every one that calls its operation (full sweep), or those deciding a rule of the field and a sample of the others (checked). */
  const calling = (omission: Omission): AnyScenario[] => {
    const all = SCENARIOS.filter((s) => operationsOf.get(s.id)?.has(omission.operation));
    if (sweep === 'full') return all;
    const own = ownFieldRules(omission);
    const decides = (s: AnyScenario) => s.rules.some((rule) => own.includes(rule));
    const drawn = all
      .filter((s) => !decides(s))
      .map((s) => ({ id: s.id, rank: hashSeed(seed, `${omission.operation} ${omission.field} ${s.id}`) }))
      .sort((a, b) => a.rank - b.rank)
      .slice(0, OMISSION_SAMPLE)
      .map((s) => s.id);
    return all.filter((s) => decides(s) || drawn.includes(s.id));
  };

  it.each(cases.map((c) => [`${c.operation} without ${c.field}`, c] as const))('%s', { timeout: 180_000 }, async (_name, omission) => {
    const scenarios = calling(omission);
    expect(scenarios.length, `no scenario calls ${omission.operation}`).toBeGreaterThan(0);
    const outcomes = await runAgainstFake([omitting(omission)], scenarios);
    const errors = outcomes.flatMap((o) => Object.entries(o.verdicts).filter(([, v]) => v.status === 'ERROR').map(([r, v]) => `${o.scenario}: ${r}: ${v.message ?? ''}`));
    expect(errors, `seed ${seed}: rules must not end in ERROR`).toEqual([]);
    // Besides the shape rule, only a rule the field itself is about (RuleDef.fields, of this operation) may FAIL: its own deviation.
    const own = ownFieldRules(omission);
    const failing = failSet(outcomes);
    expect(failing, `seed ${seed}: with ${omission.operation} answering without \`${omission.field}\`, the shape rule did not FAIL`).toContain(omission.shapeRule);
    expect(failing.filter((rule) => rule !== omission.shapeRule && !own.includes(rule)), `seed ${seed}: with ${omission.operation} answering without \`${omission.field}\`, other rules FAILed too:\n${otherFailures(outcomes, [omission.shapeRule, ...own]).join('\n')}`).toEqual([]);
  });

  it(`an extra top-level field in every answer fails no rule`, { timeout: 300_000 }, async () => {
    const outcomes = await runAgainstFake([addingAField], SCENARIOS);
    expect(otherFailures(outcomes, [])).toEqual([]);
    expect(outcomes.filter((o) => o.status === 'error').map((o) => `${o.scenario}: ${String(o.error)}`)).toEqual([]);
  });
});
