/**
 * entities.delete on a target that, like the 2.3.0 reference, keeps the deleted entity's plan active
 * at customer level (a sibling then matches the plan filter), while plans.create leaves out
 * version_slug and active (issue 17): the deviation is ENT-DELETE's FAIL, saying what it saw, not
 * BLOCKED by plans.create's missing fields. (The entities filters resting on wire names are tested in
 * wire-names.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { attach } from '../../fake-server/domain/billing.ts';
import { getEntity } from '../../fake-server/domain/entities.ts';
import type { Fault } from '../../fake-server/faults/fault.ts';
import { rewriteOutput } from '../../fake-server/faults/fault.ts';
import { SCENARIOS } from '../scenarios/index.ts';
import { runAgainstFake } from './against-fake.ts';

const scenario = SCENARIOS.find((candidate) => candidate.id === 'entities.delete-filters')!;

describe('entities.delete on a target that keeps the deleted entity’s plan at customer level (as the 2.3.0 reference does)', () => {
  /** entities.delete moves the plans the entity held to its customer before deleting it. */
  const planPassesToCustomer: Fault = {
    rule: 'ENT-DELETE',
    breaks: "entities.delete keeps the entity's own plans active at customer level",
    handlers: {
      'entities.delete': (real) => (ctx, input) => {
        const entity = getEntity(ctx, input);
        for (const subscription of entity.subscriptions) {
          if (subscription.status === 'active') attach(ctx, { customer_id: entity.customer_id, plan_id: subscription.plan_id });
        }
        return real(ctx, input);
      },
    },
  };
  /** plans.create answers without version_slug and active, as the 2.3.0 reference does. */
  const planWithoutVersionFields: Fault = {
    rule: 'PLAN-SHAPE',
    breaks: 'plans.create answers without version_slug and active',
    output: rewriteOutput('plans.create', ({ version_slug: _slug, active: _active, ...plan }: Record<string, unknown>) => plan),
  };

  it('FAILs ENT-DELETE, saying the sibling matches the plan, and blames no missing field of plans.create', async () => {
    const [outcome] = await runAgainstFake([planPassesToCustomer, planWithoutVersionFields], [scenario]);
    expect(outcome!.verdicts['ENT-DELETE']).toMatchObject({ status: 'FAIL', message: expect.stringContaining('the sibling entity does not match it') });
    expect(outcome!.verdicts['ENT-DELETE']?.blockedBy).toBeUndefined();
    for (const rule of ['ENT-PLAN-FILTER-DIRECT', 'ENT-SEARCH', 'ENT-CUSTOMER-FILTER']) expect(outcome!.verdicts[rule], rule).toMatchObject({ status: 'PASS' });
  });

  it('without the fault, ENT-DELETE PASSes there', async () => {
    const [outcome] = await runAgainstFake([planWithoutVersionFields], [scenario]);
    expect(outcome!.verdicts['ENT-DELETE']).toMatchObject({ status: 'PASS' });
  });
});
