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
