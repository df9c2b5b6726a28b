/** Broken variants of the features rules. */
import type { Feature } from '../../spec/features.ts';
import type { OperationName } from '../../spec/operations.ts';
import { IN_USE_ERROR } from '../../spec/common.ts';
import { DomainError, fail } from '../domain/context.ts';
import type { TenantStore } from '../store/tenant-store.ts';
import { type Fault, rewriteOutput } from './fault.ts';

type Body = Record<string, unknown>;

/** Rewrites the Feature answered by features.create and features.get. */
function featureAnswer(rewrite: (feature: Feature) => Body): NonNullable<Fault['output']> {
  return (operation: OperationName, body: unknown) => (operation === 'features.create' || operation === 'features.get' ? rewrite(body as Feature) : body);
}

/** Rewrites a features.create body before validation. */
function createBody(rewrite: (body: Body) => Body): NonNullable<Fault['input']> {
  return (operation: OperationName, body: unknown) => (operation === 'features.create' && typeof body === 'object' && body !== null ? rewrite(body as Body) : body);
}

/** Runs `action` with every credit cost read as 1, as if the schemas' costs were ignored. */
function withUnitCreditCosts<R>(store: TenantStore, action: () => R): R {
  const originals = [...store.features.values()].filter((feature) => feature.credit_schema !== undefined);
  for (const feature of originals) {
    store.features.set(feature.id, { ...feature, credit_schema: feature.credit_schema!.map((entry) => ({ ...entry, credit_cost: 1 })) });
  }
  try {
    return action();
  } finally {
    for (const feature of originals) store.features.set(feature.id, feature);
  }
}

const FEATURE_TYPES: readonly unknown[] = ['boolean', 'metered', 'credit_system', 'ai_credit_system'];

export const featuresFaults: readonly Fault[] = [
  {
    rule: 'FEAT-SHAPE',
    breaks: 'features.create and features.get answer the feature without its archived flag',
    output: featureAnswer(({ archived: _archived, ...rest }) => rest),
  },
  {
    rule: 'FEAT-TYPES',
    breaks: 'an ai_credit_system feature reads back as a classic credit_system',
    output: featureAnswer((feature) => (feature.type === 'ai_credit_system' ? { ...feature, type: 'credit_system' } : feature)),
  },
  {
    rule: 'FEAT-CONSUMABLE-METERED',
    breaks: 'every metered feature is made consumable, whatever consumable says',
    input: createBody((body) => (body['type'] === 'metered' ? { ...body, consumable: true } : body)),
  },
  {
    rule: 'FEAT-CONSUMABLE-ONLY-METERED',
    breaks: 'a boolean feature created with consumable true keeps consumable true',
    handlers: {
      'features.create': (real) => (ctx, input) => {
        const feature = real(ctx, input);
        if (input.type === 'boolean' && input.consumable === true) ctx.store.features.get(feature.id)!.consumable = true;
        return ctx.store.features.get(feature.id)!;
      },
    },
  },
  {
    rule: 'FEAT-DISPLAY-ROUND-TRIP',
    breaks: 'the display sent is ignored and one is made from the name instead',
    input: createBody(({ display: _display, ...rest }) => rest),
  },
  {
    rule: 'FEAT-CREDIT-SYSTEM',
    breaks: 'a credit system draws one credit per unit of a metered feature, whatever its credit_cost',
    handlers: {
      'balances.check': (real) => (ctx, input) => withUnitCreditCosts(ctx.store, () => real(ctx, input)),
      'balances.track': (real) => (ctx, input) => withUnitCreditCosts(ctx.store, () => real(ctx, input)),
    },
  },
  {
    rule: 'FEAT-CREATE-REQUIRED-FIELDS',
    breaks: 'a missing name defaults to the feature id',
    input: createBody((body) => (body['name'] === undefined ? { ...body, name: body['feature_id'] } : body)),
  },
  {
    rule: 'FEAT-TYPE-ENUM',
    breaks: 'a type outside the enum is taken as metered',
    input: createBody((body) => ('type' in body && !FEATURE_TYPES.includes(body['type']) ? { ...body, type: 'metered' } : body)),
  },
  {
    rule: 'FEAT-AI-DEFAULT-MARKUP-MIN',
    breaks: 'a default markup below -100 is clamped to -100 and accepted',
    input: createBody((body) => (typeof body['default_markup'] === 'number' && body['default_markup'] < -100 ? { ...body, default_markup: -100 } : body)),
  },
  {
    rule: 'FEAT-DUPLICATE-ID',
    breaks: 'creating an existing feature id replaces the feature',
    handlers: {
      'features.create': (real) => (ctx, input) => {
        ctx.store.features.delete(input.feature_id);
        return real(ctx, input);
      },
    },
  },
  {
    rule: 'FEAT-CREDIT-SCHEMA-VALID',
    breaks: 'credit schema entries naming a feature twice, or a feature that is not consumable and metered, are dropped instead of refused',
    handlers: {
      'features.create': (real) => (ctx, input) => {
        if (input.credit_schema === undefined) return real(ctx, input);
        const seen = new Set<string>();
        const credit_schema = input.credit_schema.filter(({ metered_feature_id: id }) => {
          const known = ctx.store.features.get(id);
          const valid = !seen.has(id) && (known === undefined || (known.type === 'metered' && known.consumable));
          seen.add(id);
          return valid;
        });
        return real(ctx, { ...input, credit_schema });
      },
    },
  },
  {
    rule: 'FEAT-AI-MARKUP-WIRE',
    breaks: 'the provider markups are not answered',
    output: featureAnswer(({ provider_markups: _markups, ...rest }) => rest),
  },
  {
    rule: 'FEAT-MODEL-MARKUPS-WIRE',
    breaks: 'the model markups are not answered',
    output: featureAnswer(({ model_markups: _markups, ...rest }) => rest),
  },
  {
    rule: 'FEAT-CREDIT-SCHEMA-WIRE',
    breaks: 'the credit schema is kept but left out of the answer',
    output: featureAnswer(({ credit_schema: _schema, ...rest }) => rest),
  },
  {
    rule: 'FEAT-EVENT-NAMES-WIRE',
    breaks: 'event_names is left out when no event names are set',
    output: featureAnswer(({ event_names, ...rest }) => (event_names === undefined || event_names.length === 0 ? rest : { ...rest, event_names })),
  },
  {
    rule: 'FEAT-GET',
    breaks: 'features.get answers the feature with its id as its name',
    handlers: { 'features.get': (real) => (ctx, input) => ({ ...real(ctx, input), name: input.feature_id }) },
  },
  {
    rule: 'FEAT-LIST',
    breaks: 'features.list leaves out boolean features',
    handlers: { 'features.list': (real) => (ctx, input) => ({ list: real(ctx, input).list.filter((feature) => feature.type !== 'boolean') }) },
  },
  {
    rule: 'FEAT-LIST-SHAPE',
    breaks: 'features.list answers {features: [...]} instead of {list: [...]}',
    output: (operation, body) => (operation === 'features.list' ? { features: (body as { list: unknown[] }).list } : body),
  },
  {
    rule: 'ERR-FEATURE-NOT-FOUND',
    breaks: 'features.get answers an unknown feature with 400 invalid_request',
    handlers: {
      'features.get': (real) => (ctx, input) => (ctx.store.features.has(input.feature_id) ? real(ctx, input) : fail('invalid_request', `Unknown feature ${input.feature_id}`)),
    },
  },
  {
    rule: 'FEAT-DELETE-IN-USE',
    breaks: 'features.delete of a feature a plan (or credit system, or entity) uses answers success and keeps it',
    handlers: {
      'features.delete': (real) => (ctx, input) => {
        try {
          return real(ctx, input);
        } catch (error) {
          if (error instanceof DomainError && error.status === IN_USE_ERROR.status) return { success: true };
          throw error;
        }
      },
    },
  },
  {
    rule: 'FEAT-DELETE-SHAPE',
    breaks: 'features.delete answers {deleted: true} instead of {success: true}',
    output: rewriteOutput('features.delete', () => ({ deleted: true })),
  },
];
