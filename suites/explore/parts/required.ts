/**
 * Refusals built from the program's own requests. First, requests without a field the document marks required (a body table's "yes" or "required"): each
 * built from what the program holds, valid but for the field left out, so that only that field
 * decides the refusal. The rule refused is the operation's *-REQUIRED-FIELDS rule (SHOULD: the
 * document lists the field, the refusal's form is the reference's).
 */
import fc from 'fast-check';
import type { RuleId } from '../../../spec/rules/catalogue.ts';
import { BOUND_OR_ENUM_KINDS, mutantsOf, requestSchema, type Mutant } from '../../../fixtures/bodies.ts';
import { boundIsStated } from '../../../spec/constraint-provenance.ts';
import { callMutates, type OperationDef } from '../../../spec/operation.ts';
import { operations, type OperationName } from '../../../spec/operations.ts';
import { defineCommand, envelopeRefusalArb, index, pick, type CommandSpec, type RunContext } from '../command.ts';

interface Case {
  readonly operation: OperationName;
  readonly rule: RuleId;
  /** A body valid on the program's world; the fields listed in `required` are each left out in turn. */
  readonly body: (context: RunContext, at: number) => Record<string, unknown>;
  readonly required: readonly string[];
}

function someCustomer(context: RunContext, at: number): string {
  return pick(context.world.customers, at) ?? context.ns.id('cus');
}

function somePlan(context: RunContext, at: number): string {
  return pick(context.world.plans, at)?.id ?? context.ns.id('plan');
}

/** A customer holding a license pool and the license plan its pool offers (a request the world would accept), else any customer and plan. */
function licensed(context: RunContext, at: number): { customer_id: string; plan_id: string } {
  const holder = pick(context.world.poolHolders(), at);
  const offering = context.world.plans.filter((p) => p.licenses.length > 0 && context.world.holdings.some((h) => h.customerId === holder && h.entityId === undefined && h.planId === p.id));
  const licensePlan = pick(offering, at)?.licenses[0]?.licensePlanId;
  return holder !== undefined && licensePlan !== undefined ? { customer_id: holder, plan_id: licensePlan } : { customer_id: someCustomer(context, at), plan_id: somePlan(context, at) };
}

/** The feature a new entity of a license is created with, when the program has one. */
function seatOf(context: RunContext): { feature_id?: string } {
  const seat = context.world.features.find((f) => f.type === 'metered' && !f.consumable);
  return seat ? { feature_id: seat.id } : {};
}

const CASES: readonly Case[] = [
  { operation: 'licenses.list', rule: 'LIC-LIST-REQUIRED-FIELDS', body: (c, at) => ({ customer_id: someCustomer(c, at) }), required: ['customer_id'] },
  {
    operation: 'licenses.attach',
    rule: 'LIC-ATTACH-REQUIRED-FIELDS',
    body: (c, at) => ({ ...licensed(c, at), entities: [{ entity_id: c.ns.id('seat'), name: 'Seat', ...seatOf(c) }] }),
    required: ['customer_id', 'plan_id', 'entities', 'entities.0.name'],
  },
  {
    operation: 'licenses.release',
    rule: 'LIC-RELEASE-REQUIRED-FIELDS',
    body: (c, at) => ({ customer_id: someCustomer(c, at), license_plan_id: somePlan(c, at), entity_ids: [pick(c.world.entities, at)?.id ?? c.ns.id('seat')] }),
    required: ['customer_id', 'license_plan_id', 'entity_ids'],
  },
  { operation: 'plans.create', rule: 'PLAN-CREATE-REQUIRED-FIELDS', body: (c) => ({ plan_id: c.ns.id('plan'), name: 'Required' }), required: ['plan_id', 'name'] },
  // With its version: a request that names a version of no plan is refused for the plan it lacks.
  { operation: 'plans.get', rule: 'PLAN-GET-REQUIRED-FIELDS', body: (c, at) => ({ plan_id: somePlan(c, at), version: 1 }), required: ['plan_id'] },
  {
    operation: 'balances.check',
    rule: 'CHECK-REQUIRED-FIELDS',
    body: (c, at) => ({ customer_id: someCustomer(c, at), feature_id: pick(c.world.features, at)?.id ?? c.ns.id('feat') }),
    required: ['customer_id', 'feature_id'],
  },
  { operation: 'features.create', rule: 'FEAT-CREATE-REQUIRED-FIELDS', body: (c) => ({ feature_id: c.ns.id('feat'), name: 'Required', type: 'boolean' }), required: ['name', 'type'] },
  {
    operation: 'billing.preview_multi_update',
    rule: 'PREV-REQUIRED-FIELDS',
    body: (c, at) => ({ customer_id: someCustomer(c, at), updates: [{ plan_id: somePlan(c, at), cancel_action: 'cancel_immediately' }] }),
    required: ['customer_id', 'updates'],
  },
  {
    operation: 'billing.preview_multi_update',
    rule: 'PREV-UPDATE-FIELDS',
    body: (c, at) => ({ customer_id: someCustomer(c, at), updates: [{ plan_id: somePlan(c, at), cancel_action: 'cancel_immediately' }] }),
    required: ['updates.0.plan_id', 'updates.0.cancel_action'],
  },
  { operation: 'referral_programs.update', rule: 'REF-UPDATE-REQUIRED-ID', body: (c, at) => ({ referral_program_id: pick(c.world.programs, at)?.id ?? c.ns.id('prog'), received_by: 'all' }), required: ['referral_program_id'] },
];

function without(body: Record<string, unknown>, path: string): Record<string, unknown> {
  const [head, ...rest] = path.split('.');
  if (rest.length === 0) {
    const { [head!]: _, ...kept } = body;
    return kept;
  }
  const inner = body[head!];
  if (Array.isArray(inner)) return { ...body, [head!]: inner.map((item, i) => (String(i) === rest[0] ? without(item as Record<string, unknown>, rest.slice(1).join('.')) : item)) };
  return { ...body, [head!]: without(inner as Record<string, unknown>, rest.join('.')) };
}

export const requiredCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'required-field-missing',
    part: 'errors',
    weight: 2,
    refusal: true,
    args: fc.record({ case: fc.nat({ max: CASES.length - 1 }), field: fc.nat({ max: 3 }), at: index, envelope: envelopeRefusalArb }),
    async run(context, args) {
      const chosen = CASES[args.case]!;
      const field = chosen.required[args.field % chosen.required.length]!;
      context.reached('refusal');
      if (args.envelope) context.reached('two-ways-wrong');
      await context.send({ operation: chosen.operation, body: without(chosen.body(context, args.at), field), intent: chosen.rule, ...(args.envelope ? { variant: args.envelope } : {}) });
    },
  }),
];

/**
 * Whether a mutant breaks a bound or enumeration interface.md states (one with a rule of its own,
 * or one it states outright on a documented operation): exactly one stated way. Others (an empty
 * feature name, a length or pattern only the reference's schemas have, a wrong type, a value past
 * the safe integers) are the scenarios' (envelope.generated-bounds-refused-reference), at SHOULD:
 * the reference itself takes some of them, or crashes on them (an empty feature name is its 500).
 * Required fields left out are the `required-field-missing` command's, which names their rule.
 */
function stated(operation: OperationName, mutant: Mutant): boolean {
  return BOUND_OR_ENUM_KINDS.has(mutant.kind) && boundIsStated(operation, mutant.path);
}

/**
 * Fields whose broken value could reach data outside the program where a lenient target takes it as
 * it came (IDs, names): never broken in a call that writes (as the generated-body scenarios do).
 */
function guarded(path: readonly (string | number)[]): boolean {
  const key = String(path.at(-1) ?? '');
  return key === 'id' || key.endsWith('_id') || key.endsWith('_ids') || key === 'code' || key === 'event_names' || key === 'event_name' || key === 'auto_enable';
}

/**
 * A request the program made and the model accepted, broken in one constraint (fixtures/bodies.ts
 * `mutantsOf`): the model refuses it, and so must the target; the rule is the one of the constraint
 * (its own bound rule, or the umbrella rules of bounds and enumerations), found by compare.ts.
 */
/** How many of an operation's latest accepted calls a mutant may come from. */
const RECENT_CALLS = 6;

export const mutantCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'mutant-of-recent',
    part: 'errors',
    weight: 5,
    refusal: true,
    args: fc.record({ back: fc.nat({ max: 20 }), call: fc.nat({ max: 20 }), kind: fc.nat({ max: 20 }), mutant: fc.nat({ max: 200 }), envelope: envelopeRefusalArb }),
    applies: (world) => world.customers.length > 0,
    async run(context, args) {
      // One operation among those the program made accepted calls of that can be broken in a stated way (each alike, whatever their number),
      // then one of those calls, the latest first (a stated bound may sit in one call's body only: a tiered price).
      const accepted = context.lockstep.steps.filter((step) => !step.resolve && !step.operation.startsWith('control:') && step.model.status === 200 && step.variant === undefined && step.caller?.environment === undefined);
      const breakable = (step: (typeof accepted)[number]) => {
        const operation = step.operation as OperationName;
        const writes = callMutates(operations[operation] as Pick<OperationDef, 'mutates'>, step.request);
        return mutantsOf(requestSchema(operation), step.request).filter((m) => stated(operation, m) && !(writes && guarded(m.path)));
      };
      // The latest few calls of each operation (a command that makes hundreds of customers makes no hundreds of candidates).
      const recent = new Map<string, { source: (typeof accepted)[number]; mutants: Mutant[] }[]>();
      const looked = new Map<string, number>();
      for (const step of [...accepted].reverse()) {
        const seen = looked.get(step.operation) ?? 0;
        if (seen >= RECENT_CALLS) continue;
        looked.set(step.operation, seen + 1);
        const mutants = breakable(step);
        if (mutants.length > 0) recent.set(step.operation, [...(recent.get(step.operation) ?? []), { source: step, mutants }]);
      }
      const chosen = pick([...recent.entries()].filter(([, calls]) => calls.length > 0), args.back);
      if (chosen === undefined) return;
      const [name, calls] = chosen;
      const { source, mutants } = pick(calls, args.call)!;
      const operation = name as OperationName;
      const kinds = [...new Set(mutants.map((m) => m.kind))];
      const kind = pick(kinds, args.kind);
      const mutant = pick(mutants.filter((m) => m.kind === kind), args.mutant);
      if (mutant === undefined) return;
      context.reached('refusal');
      if (args.envelope) context.reached('two-ways-wrong');
      await context.send({ operation, body: mutant.body as Record<string, unknown>, ...(source.question?.customerId ? { customerId: source.question.customerId } : {}), tags: [`mutant:${mutant.kind}`], ...(args.envelope ? { variant: args.envelope } : {}) });
    },
  }),
];
