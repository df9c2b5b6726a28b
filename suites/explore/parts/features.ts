/** Generators of the Features part: `features.create` (documented), `features.get` and `features.list` (setup reads). */
import fc from 'fast-check';
import { defineCommand, index, pick, variantArb, type CommandSpec, type RunContext } from '../command.ts';
import type { FeatureInfo } from '../world.ts';
import { fractionalAmount } from './amounts.ts';

type Kind = 'boolean' | 'consumable' | 'allocated' | 'credit' | 'ai';

const kindArb = fc.oneof(
  { arbitrary: fc.constant<Kind>('consumable'), weight: 5 },
  { arbitrary: fc.constant<Kind>('allocated'), weight: 3 },
  { arbitrary: fc.constant<Kind>('boolean'), weight: 3 },
  { arbitrary: fc.constant<Kind>('credit'), weight: 2 },
  { arbitrary: fc.constant<Kind>('ai'), weight: 1 },
);

const createArgs = fc.record({
  kind: kindArb,
  display: fc.boolean(),
  /** none, the program's shared event name, or both the shared and an own one. */
  events: fc.constantFrom('none', 'none', 'shared', 'both'),
  covers: fc.array(index, { minLength: 1, maxLength: 3 }),
  costs: fc.array(fc.oneof(fc.constantFrom(1, 2, 10), fractionalAmount), { minLength: 3, maxLength: 3 }),
  markup: fc.constantFrom(-100, -50, 0, 12.5, 300),
  /** `consumable` sent on a feature it does not apply to (a boolean one), which is ignored. */
  strayConsumable: fc.boolean(),
});

type CreateArgs = typeof createArgs extends fc.Arbitrary<infer A> ? A : never;

function createBody(context: RunContext, args: CreateArgs): { body: Record<string, unknown>; covers: string[] } | undefined {
  const { world, ns } = context;
  const id = ns.id('feat');
  const name = `Feature ${id.slice(-6)}`;
  const events = args.events === 'none' ? undefined : args.events === 'shared' ? [world.eventName] : [world.eventName, ns.id('evt')];
  const display = args.display ? { display: { singular: 'unit', plural: 'units' } } : {};
  const common = { feature_id: id, name, ...display, ...(events ? { event_names: events } : {}) };
  switch (args.kind) {
    case 'boolean':
      return { body: { ...common, type: 'boolean', ...(args.strayConsumable ? { consumable: true } : {}) }, covers: [] };
    case 'consumable':
    case 'allocated':
      return { body: { ...common, type: 'metered', consumable: args.kind === 'consumable' }, covers: [] };
    case 'credit': {
      const metered = world.features.filter((f) => f.type === 'metered' && f.consumable);
      if (metered.length === 0) return undefined;
      const covers = [...new Set(args.covers.map((i) => pick(metered, i)!.id))];
      const schema = covers.map((featureId, i) => ({ metered_feature_id: featureId, credit_cost: args.costs[i] ?? 1 }));
      return { body: { ...common, type: 'credit_system', credit_schema: schema }, covers };
    }
    case 'ai':
      return { body: { ...common, type: 'ai_credit_system', default_markup: args.markup, model_markups: { 'openai/gpt-x': { markup: 10 } }, provider_markups: { openai: { markup: 5 } } }, covers: [] };
  }
}

export const featureCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'features.create',
    part: 'features',
    weight: 2,
    builds: true,
    args: createArgs,
    async run(context, args) {
      const made = createBody(context, args);
      if (made === undefined) return;
      const { model } = await context.send({ operation: 'features.create', body: made.body, tags: [args.kind] });
      if (model.status !== 200) return;
      const feature = model.body as { id: string; type: FeatureInfo['type']; consumable: boolean; event_names?: string[] };
      context.world.features.push({ id: feature.id, type: feature.type, consumable: feature.consumable, eventNames: feature.event_names ?? [], covers: made.covers });
    },
  }),
  defineCommand({
    name: 'features.create-refused',
    part: 'features',
    weight: 2,
    refusal: true,
    args: fc.record({ how: fc.constantFrom('duplicate', 'type', 'markup', 'no-name', 'credit-twice', 'credit-allocated'), feature: index, variant: variantArb }),
    async run(context, { how, feature, variant }) {
      const existing = pick(context.world.features, feature);
      const id = how === 'duplicate' && existing ? existing.id : context.ns.id('feat');
      const metered = pick(context.world.features.filter((f) => f.type === 'metered' && f.consumable), feature);
      // An allocated metered feature (a boolean one the reference accepts in a credit schema: leeway.ts CREDIT-SCHEMA-BOOLEAN).
      const allocated = pick(context.world.features.filter((f) => f.type === 'metered' && !f.consumable), feature);
      if (how === 'credit-twice' && metered) {
        context.reached('refusal');
        const schema = [{ metered_feature_id: metered.id, credit_cost: 1 }, { metered_feature_id: metered.id, credit_cost: 2 }];
        return void (await context.send({ operation: 'features.create', body: { feature_id: id, name: 'Twice', type: 'credit_system', credit_schema: schema }, intent: 'FEAT-CREDIT-SCHEMA-VALID' }));
      }
      if (how === 'credit-allocated' && allocated) {
        context.reached('refusal');
        return void (await context.send({ operation: 'features.create', body: { feature_id: id, name: 'Not consumable', type: 'credit_system', credit_schema: [{ metered_feature_id: allocated.id, credit_cost: 1 }] }, intent: 'FEAT-CREDIT-SCHEMA-VALID' }));
      }
      if (how === 'credit-twice' || how === 'credit-allocated') return;
      const body =
        how === 'type'
          ? { feature_id: id, name: 'Bad type', type: 'gauge' }
          : how === 'markup'
            ? { feature_id: id, name: 'Bad markup', type: 'ai_credit_system', default_markup: -100.5 }
            : how === 'no-name'
              ? { feature_id: id, type: 'boolean' }
              : { feature_id: id, name: 'Again', type: 'boolean' };
      const intent = { duplicate: 'FEAT-DUPLICATE-ID', type: 'FEAT-TYPE-ENUM', markup: 'FEAT-AI-DEFAULT-MARKUP-MIN', 'no-name': 'FEAT-CREATE-REQUIRED-FIELDS' } as const;
      context.reached('refusal');
      await context.send({ operation: 'features.create', body, intent: intent[how as keyof typeof intent], variant });
    },
  }),
  defineCommand({
    name: 'features.get',
    part: 'features',
    weight: 1,
    reads: true,
    args: fc.record({ feature: index, unknown: fc.boolean(), variant: variantArb }),
    async run(context, { feature, unknown, variant }) {
      const id = unknown ? context.ns.id('nofeat') : pick(context.world.features, feature)?.id;
      if (id === undefined) return;
      await context.send({ operation: 'features.get', body: { feature_id: id }, variant });
    },
  }),
  defineCommand({
    name: 'features.list',
    part: 'features',
    weight: 1,
    reads: true,
    args: fc.record({ variant: variantArb }),
    async run(context, { variant }) {
      await context.send({ operation: 'features.list', body: {}, variant });
    },
  }),
  defineCommand({
    // The reference's delete (a setup operation): refused while a plan or a credit system uses the feature.
    name: 'features.delete',
    part: 'features',
    weight: 1,
    args: fc.record({ feature: index }),
    applies: (world) => world.features.length > 0,
    async run(context, { feature }) {
      const id = pick(context.world.features, feature)!.id;
      const { model } = await context.send({ operation: 'features.delete', body: { feature_id: id } });
      if (model.status === 200) context.world.features = context.world.features.filter((f) => f.id !== id);
    },
  }),
];
