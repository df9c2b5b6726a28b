/**
 * Building blocks the compound commands share (worlds, deletes, scale, combinations): a feature, a
 * plan, a customer, an entity, an attach, a read of a balance, each one call compared like any
 * other and learnt into the program's world when the model accepts it. `caller` sends it as another
 * caller (sides.ts); made in the organisation's other environment, it is not learnt (random steps
 * act on the program's own environment).
 */
import type { RuleId } from '../../../spec/rules/catalogue.ts';
import type { Observation, RunContext, SendSpec } from '../command.ts';
import type { Caller } from '../sides.ts';
import { learnPlan } from './plans.ts';

export type FeatureKind = 'boolean' | 'consumable' | 'allocated';

const byCaller = (caller: Caller | undefined) => (caller ? { caller } : {});

/** A feature of a kind; its ID (or `id`, to make one again under a known ID); undefined when refused. */
export async function createFeature(context: RunContext, type: FeatureKind, options: { readonly id?: string; readonly name?: string; readonly caller?: Caller; readonly intent?: RuleId } = {}): Promise<string | undefined> {
  const id = options.id ?? context.ns.id('feat');
  const name = options.name ?? `${type === 'boolean' ? 'Flag' : 'Units'} ${id.slice(-4)}`;
  const body = type === 'boolean' ? { feature_id: id, name, type: 'boolean' } : { feature_id: id, name, type: 'metered', consumable: type === 'consumable' };
  const { model } = await context.send({ operation: 'features.create', body, ...byCaller(options.caller), ...(options.intent ? { intent: options.intent } : {}) });
  if (model.status !== 200) return undefined;
  if (options.caller?.environment === undefined && !context.world.features.some((f) => f.id === id)) {
    context.world.features.push({ id, type: type === 'boolean' ? 'boolean' : 'metered', consumable: type === 'consumable', eventNames: [], covers: [] });
  }
  return id;
}

/** A credit system pricing metered features at the given costs; its ID, or undefined when refused. */
export async function createCreditSystem(context: RunContext, costs: readonly (readonly [string, number])[]): Promise<string | undefined> {
  const id = context.ns.id('credits');
  const schema = costs.map(([featureId, cost]) => ({ metered_feature_id: featureId, credit_cost: cost }));
  const { model } = await context.send({ operation: 'features.create', body: { feature_id: id, name: `Credits ${id.slice(-4)}`, type: 'credit_system', credit_schema: schema } });
  if (model.status !== 200) return undefined;
  context.world.features.push({ id, type: 'credit_system', consumable: true, eventNames: [], covers: costs.map(([featureId]) => featureId) });
  return id;
}

/** A plan (a name is added); its ID, or undefined when refused. */
export async function createPlan(context: RunContext, body: Record<string, unknown>, options: { readonly id?: string; readonly caller?: Caller; readonly intent?: RuleId } = {}): Promise<string | undefined> {
  const id = options.id ?? context.ns.id('plan');
  const { model } = await context.send({ operation: 'plans.create', body: { plan_id: id, name: `Plan ${id.slice(-4)}`, ...body }, ...byCaller(options.caller), ...(options.intent ? { intent: options.intent } : {}) });
  if (model.status !== 200) return undefined;
  if (options.caller?.environment === undefined) learnPlan(context, model.body);
  return id;
}

/** A plan attached to a customer (or one of its entities, `extra.entity_id`). */
export async function attach(context: RunContext, customerId: string, planId: string, extra: Record<string, unknown> = {}, tags: readonly string[] = [], caller?: Caller): Promise<boolean> {
  const { model } = await context.send({ operation: 'billing.attach', body: { customer_id: customerId, plan_id: planId, ...extra }, customerId, tags, ...byCaller(caller) });
  return model.status === 200;
}

/** A new customer of the program (or `id`, to make one again); its ID. */
export async function newCustomer(context: RunContext, options: { readonly id?: string; readonly name?: string; readonly caller?: Caller; readonly observe?: SendSpec['observe'] } = {}): Promise<string> {
  const id = options.id ?? context.ns.id('cus');
  const { model } = await context.send({ operation: 'customers.get_or_create', body: { customer_id: id, ...(options.name ? { name: options.name } : {}) }, customerId: id, ...byCaller(options.caller), ...(options.observe ? { observe: options.observe } : {}) });
  if (model.status === 200 && options.caller?.environment === undefined && !context.world.customers.includes(id)) context.world.customers.push(id);
  return id;
}

/** A customer of the program: the one at `index` when there is one, else a new one. */
export async function someCustomer(context: RunContext, index: number): Promise<string> {
  return context.world.customers[index % Math.max(1, context.world.customers.length)] ?? (await newCustomer(context));
}

/** An entity of a customer tied to an allocated feature; its ID, or undefined when refused. */
export async function createEntity(context: RunContext, customerId: string, featureId: string, options: { readonly id?: string; readonly name?: string; readonly caller?: Caller; readonly intent?: RuleId } = {}): Promise<string | undefined> {
  const id = options.id ?? context.ns.id('ent');
  const { model } = await context.send({ operation: 'entities.create', body: { customer_id: customerId, entity_id: id, feature_id: featureId, name: options.name ?? `Seat ${id.slice(-4)}` }, customerId, ...byCaller(options.caller), ...(options.intent ? { intent: options.intent } : {}) });
  if (model.status !== 200) return undefined;
  if (options.caller?.environment === undefined) {
    if (!context.world.entities.some((e) => e.id === id)) context.world.entities.push({ id, customerId, featureId });
    if (!context.world.customers.includes(customerId)) context.world.customers.push(customerId);
  }
  return id;
}

/** An allocated feature of the program (entities need one), made when there is none. */
export async function seatFeature(context: RunContext): Promise<string | undefined> {
  return context.world.features.find((f) => f.type === 'metered' && !f.consumable)?.id ?? (await createFeature(context, 'allocated'));
}

/** A check of nothing: a subject's balance of a feature, read (compared) without using it. */
export function balanceRead(customerId: string, featureId: string, entityId?: string, caller?: Caller): Observation {
  return { operation: 'balances.check', body: { customer_id: customerId, feature_id: featureId, required_balance: 0, ...(entityId ? { entity_id: entityId } : {}) }, customerId, tags: ['plain'], ...byCaller(caller) };
}

/** Reads, each compared, one after the other. */
export async function readAll(context: RunContext, reads: readonly Observation[]): Promise<void> {
  for (const read of reads) await context.send(read);
}
