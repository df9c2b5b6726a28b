/**
 * IDs that differ only in case name different objects, for every kind of ID: features, plans,
 * customers, entities, rewards and referral programs. Each pair is created, read, listed and one of
 * it deleted; the other is then read as it was. (Customers and plans created and read back:
 * variants.ts; entity IDs within one license batch: licenses/attach.ts.)
 */
import { expect } from 'vitest';
import { type T, deletionsOf, createCustomer, createFeature, expectDeleted, newCustomerBody, scenario } from '../../support.ts';
import { listIds } from '../entities/support.ts';

/** Two IDs the run owns that differ only in the case of their last letter: [upper, lower]. */
function twinIds(t: T, kind: string): readonly [string, string] {
  const base = t.ns.id(kind);
  return [`${base}_X`, `${base}_x`];
}


export const idCaseScenarios = [
  scenario(
    {
      id: 'envelope.ids-differing-in-case-catalogue',
      title: 'feature and plan IDs that differ only in case name two objects: each is read and listed as its own, and deleting one leaves the other as it was',
      rules: ['FEAT-GET', 'FEAT-LIST', 'FEAT-DELETE-IN-USE', 'PLAN-LIST', 'PLAN-DELETE'],
    },
    async (t) => {
      const featureIds = twinIds(t, 'feat');
      for (const id of featureIds) t.expectOk(await t.client.call('features.create', { feature_id: id, name: `Flag ${id.at(-1)}`, type: 'boolean' }), 'FEAT-GET');
      const readFeatures = async (rule: 'FEAT-GET' | 'FEAT-DELETE-IN-USE', ids: readonly string[]) => {
        const read: [string, string][] = [];
        for (const id of ids) {
          const feature = t.expectOk(await t.client.call('features.get', { feature_id: id }), rule);
          read.push([feature.id, feature.name]);
        }
        return read;
      };
      const features = await readFeatures('FEAT-GET', featureIds);
      t.check('FEAT-GET', () => expect(features, 'each feature reads back as its own').toEqual(featureIds.map((id) => [id, `Flag ${id.at(-1)}`])));
      const listed = t.expectOk(await t.client.call('features.list', {}), 'FEAT-LIST').list.filter((feature) => featureIds.includes(feature.id));
      t.check('FEAT-LIST', () => expect(listed.map((feature) => [feature.id, feature.name]).sort(), 'features.list lists both, each with its own name').toEqual(featureIds.map((id) => [id, `Flag ${id.at(-1)}`]).sort()));

      const planIds = twinIds(t, 'plan');
      // That plans.create keeps such twins apart is envelope.ids-differing-in-case's (PLAN-CREATE-THEN-GET): setup here.
      for (const id of planIds) t.setup(await t.client.call('plans.create', { plan_id: id, name: `Plan ${id.at(-1)}` }));
      const plansListed = t.expectOk(await t.client.call('plans.list', {}), 'PLAN-LIST').list.filter((plan) => planIds.includes(plan.id));
      t.check('PLAN-LIST', () => expect(plansListed.map((plan) => plan.id).sort(), 'plans.list lists both').toEqual([...planIds].sort()));

      // Deleting the upper-case one leaves the lower-case one as it was.
      await expectDeleted(t, 'FEAT-DELETE-IN-USE', deletionsOf(t).feature, featureIds[0]);
      const kept = await readFeatures('FEAT-DELETE-IN-USE', [featureIds[1]]);
      t.check('FEAT-DELETE-IN-USE', () => expect(kept, `deleting ${featureIds[0]} leaves ${featureIds[1]}`).toEqual([[featureIds[1], 'Flag x']]));
      await expectDeleted(t, 'PLAN-DELETE', deletionsOf(t).plan, planIds[0]);
      const keptPlan = t.expectOk(await t.client.call('plans.get', { plan_id: planIds[1] }), 'PLAN-DELETE');
      t.check('PLAN-DELETE', () => expect(keptPlan.id, `deleting ${planIds[0]} leaves ${planIds[1]}`).toBe(planIds[1]));
    },
  ),
  scenario(
    {
      id: 'envelope.ids-differing-in-case-holders',
      title: 'customer and entity IDs that differ only in case name two holders: each is read and listed as its own, and deleting one leaves the other as it was',
      rules: ['CUS-GET', 'CUS-DELETE', 'ENT-CREATE', 'ENT-GET', 'ENT-CUSTOMER-FILTER', 'ENT-DELETE'],
    },
    async (t) => {
      const customerIds = twinIds(t, 'cus');
      for (const id of customerIds) t.setup(await t.client.call('customers.get_or_create', { ...newCustomerBody(t), customer_id: id, name: `Holder ${id.at(-1)}` }));
      const readCustomer = async (rule: 'CUS-GET' | 'CUS-DELETE', id: string) => {
        const customer = t.expectOk(await t.client.call('customers.get', { customer_id: id }), rule);
        return [customer.id, customer.name];
      };
      const customers = [await readCustomer('CUS-GET', customerIds[0]), await readCustomer('CUS-GET', customerIds[1])];
      // The ID each answer carries tells which customer answered (the names are get_or_create's, setup here).
      t.check('CUS-GET', () => expect(customers.map(([id]) => id), 'each customer ID reads its own customer').toEqual([...customerIds]));

      const seat = await createFeature(t, 'allocated');
      const owner = await createCustomer(t);
      const entityIds = twinIds(t, 'ent');
      for (const id of entityIds) t.expectOk(await t.client.call('entities.create', { customer_id: owner.id, entity_id: id, feature_id: seat.id, name: `Seat ${id.at(-1)}` }), 'ENT-CREATE');
      const readEntity = async (rule: 'ENT-GET' | 'ENT-DELETE', id: string) => {
        const entity = t.expectOk(await t.client.call('entities.get', { customer_id: owner.id, entity_id: id }), rule);
        return [entity.id, entity.name];
      };
      const entities = [await readEntity('ENT-GET', entityIds[0]), await readEntity('ENT-GET', entityIds[1])];
      // Which entity answers is entities.get's; the name it carries is what entities.create kept (ENT-CREATE's).
      t.check('ENT-GET', () => expect(entities.map(([id]) => id), 'each entity ID reads its own entity').toEqual([...entityIds]));
      t.check('ENT-CREATE', () => expect(entities, 'each entity keeps its own name').toEqual(entityIds.map((id) => [id, `Seat ${id.at(-1)}`])));
      const listed = await listIds(t, { customer_id: owner.id }, 'ENT-CUSTOMER-FILTER');
      t.check('ENT-CUSTOMER-FILTER', () => expect([...listed].sort(), "entities.list of the customer lists both").toEqual([...entityIds].sort()));

      await expectDeleted(t, 'CUS-DELETE', deletionsOf(t).customer, customerIds[0]);
      const keptCustomer = await readCustomer('CUS-DELETE', customerIds[1]);
      t.check('CUS-DELETE', () => expect(keptCustomer[0], `deleting ${customerIds[0]} leaves ${customerIds[1]}`).toBe(customerIds[1]));

      t.expectOk(await t.client.call('entities.delete', { customer_id: owner.id, entity_id: entityIds[0] }), 'ENT-DELETE');
      const gone = await t.client.call('entities.get', { customer_id: owner.id, entity_id: entityIds[0] });
      t.check('ENT-DELETE', () => expect(gone.status, `entities.get of the deleted ${entityIds[0]}`).toBe(404));
      const listedAfter = await listIds(t, { customer_id: owner.id }, 'ENT-DELETE');
      t.check('ENT-DELETE', () => expect(listedAfter, `entities.list lists ${entityIds[1]} only`).toEqual([entityIds[1]]));
      const keptEntity = await readEntity('ENT-DELETE', entityIds[1]);
      t.check('ENT-DELETE', () => expect(keptEntity[0], `deleting ${entityIds[0]} leaves ${entityIds[1]}`).toBe(entityIds[1]));
    },
  ),
  scenario(
    {
      id: 'envelope.ids-differing-in-case-referrals',
      title:
        'reward and referral program IDs that differ only in case name two objects: each program reads back with its own reward, deleting one program leaves the other, and a reward no program links is deleted while its twin a program links is not',
      rules: ['REF-REWARD-CREATE', 'REF-GET', 'REF-PROGRAM-DELETE', 'REF-REWARD-DELETE-LINKED'],
    },
    async (t) => {
      const units = await createFeature(t, 'consumable');
      const rewardIds = twinIds(t, 'reward');
      for (const id of rewardIds) {
        const grant = { id, name: `Reward ${id.at(-1)}`, grants: [{ feature_id: units.id, included: 5, expiry: null }], promo_codes: [{ code: t.ns.code('PROMO'), max_uses: null }] };
        t.expectOk(await t.client.call('rewards.create', { feature_grant: grant }), 'REF-REWARD-CREATE');
      }
      // The upper-case program links the upper-case reward, the lower-case one the lower-case reward.
      const programIds = twinIds(t, 'refprog');
      for (const [i, id] of programIds.entries()) {
        t.expectOk(await t.client.call('referral_programs.create', { id, reward_id: rewardIds[i]!, redeem_on: 'customer_creation', received_by: i === 0 ? 'referrer' : 'all' }), 'REF-REWARD-CREATE');
      }
      const readProgram = async (rule: 'REF-GET' | 'REF-PROGRAM-DELETE', id: string) => {
        const program = t.expectOk(await t.client.call('referral_programs.get', { referral_program_id: id }), rule);
        return [program.id, program.reward_id, program.received_by];
      };
      const programs = [await readProgram('REF-GET', programIds[0]), await readProgram('REF-GET', programIds[1])];
      t.check('REF-GET', () => expect(programs, 'each program reads back as its own, with its own reward').toEqual([[programIds[0], rewardIds[0], 'referrer'], [programIds[1], rewardIds[1], 'all']]));

      await expectDeleted(t, 'REF-PROGRAM-DELETE', deletionsOf(t).program, programIds[0]);
      const kept = await readProgram('REF-PROGRAM-DELETE', programIds[1]);
      t.check('REF-PROGRAM-DELETE', () => expect(kept, `deleting ${programIds[0]} leaves ${programIds[1]}`).toEqual([programIds[1], rewardIds[1], 'all']));

      // No program links the upper-case reward any more; the lower-case one is still linked.
      t.expectError(await t.client.call('rewards.delete', { reward_id: rewardIds[1] }), { rule: 'REF-REWARD-DELETE-LINKED' });
      t.expectOk(await t.client.call('rewards.delete', { reward_id: rewardIds[0] }), 'REF-REWARD-DELETE-LINKED');
    },
  ),
];
