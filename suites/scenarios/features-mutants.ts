/**
 * Feature scenarios found missing by mutation testing (`npm run mutation`, README "Mutation
 * testing"): behaviour of the fake's features that could be changed without any other scenario noticing.
 */
import { expect } from 'vitest';
import { createFeature, scenario } from '../support.ts';

export const featuresMutantScenarios = [
  scenario(
    {
      id: 'features.credit-schema-refused',
      title: 'a credit schema naming one metered feature twice, an allocated or a boolean feature, or another credit system is refused; one naming a consumable metered feature once is accepted',
      rules: ['FEAT-CREDIT-SCHEMA-VALID'],
    },
    async (t) => {
      const [messages, seats, flag] = [await createFeature(t, 'consumable'), await createFeature(t, 'allocated'), await createFeature(t, 'boolean')];
      const createCredits = async (schema: { metered_feature_id: string; credit_cost: number }[]) =>
        t.client.call('features.create', { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system', credit_schema: schema });
      // The nearest valid request: the consumable feature once.
      const credits = t.setup(await createCredits([{ metered_feature_id: messages.id, credit_cost: 2 }]), ['id']);
      // The schema is read at all (FEAT-CREDIT-SCHEMA-WIRE's): else a refusal could not show.
      t.precondition('the credit system reads back its schema', () => expect(credits.credit_schema).toEqual([{ metered_feature_id: messages.id, credit_cost: 2 }]));
      const refused = { rule: 'FEAT-CREDIT-SCHEMA-VALID', status: 400, code: 'invalid_feature' } as const;
      t.expectError(await createCredits([{ metered_feature_id: messages.id, credit_cost: 2 }, { metered_feature_id: messages.id, credit_cost: 3 }]), refused);
      for (const other of [seats, flag, credits]) t.expectError(await createCredits([{ metered_feature_id: other.id, credit_cost: 1 }]), refused);
    },
  ),
];
