/** Builders and checks that several features scenario modules share. */
import type { z } from 'zod';
import type { Feature } from '../../../spec/features.ts';
import type { RuleId } from '../../../spec/rules/catalogue.ts';
import type { Ops, T } from '../../support.ts';

export type CreateBody = z.input<Ops['features.create']['request']>;

/** features.create as the subject of `rule`. */
export async function create(t: T, rule: RuleId, body: CreateBody): Promise<Feature> {
  return t.expectOk(await t.client.call('features.create', body), rule);
}

/** features.get as a read (setup); the rule using it checks what it answers. */
export async function readFeature(t: T, featureId: string): Promise<Feature> {
  return t.setup(await t.client.call('features.get', { feature_id: featureId }));
}

/**
 * features.create refuses `body` (a check of `rule`) and leaves no feature behind: the nearest valid
 * request, a boolean feature under the same id, is then accepted (a feature left behind would make
 * it a duplicate). Both through the documented features.create.
 */
export async function expectRefusedAndAbsent(t: T, rule: RuleId, body: Record<string, unknown>): Promise<void> {
  t.expectError(await t.client.call('features.create', body as CreateBody), { rule });
  await create(t, rule, { feature_id: String(body['feature_id']), name: 'Valid', type: 'boolean' });
}

/**
 * A consumable metered feature, created directly (setup) with `consumable` sent: where a rule of the
 * scenario owns features.create, no premise may rest on its answer (its kind is FEAT-CONSUMABLE-METERED's).
 */
export async function consumableFeature(t: T): Promise<Feature> {
  const featureId = t.ns.id('featconsumable');
  return t.setup(await t.client.call('features.create', { feature_id: featureId, name: `Units ${featureId}`, type: 'metered', consumable: true }), ['id']);
}

/**
 * The MUST credit-system rules rest on the name of the credit-schema field, which interface.md does
 * not show (spec/wire-names.ts): first shown read. The same credit system is created with the schema
 * and without it; the two answers differ when the name is read (the reference refuses a credit system
 * without a schema, and answers the one with it with its schema), so the answers are compared as they
 * come, refusals included.
 */
export async function requireCreditSchema(t: T, meteredFeatureId: string): Promise<void> {
  await t.requireWireName('features.create.credit_schema', async (send) => {
    const body = { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system' as const, ...(send && { credit_schema: [{ metered_feature_id: meteredFeatureId, credit_cost: 2 }] }) };
    const result = await t.client.call('features.create', body);
    return result.ok ? { accepted: result.body.credit_schema ?? null } : { refused: result.status };
  });
}
