/**
 * Scenarios of locks: units held by a check with lock settings, kept or given back by
 * balances.finalize (with override_value, across grant sources), given back when the lock
 * expires, and not held for ever when an entity is deleted.
 */
import { expect } from 'vitest';
import type { z } from 'zod';
import { attach, createCustomer, createEntity, createFeature, createPlan, MONTHLY, type Ops, requireNotRead, scenario } from '../../support.ts';
import { ask, balanceNow, consumable, customerHolding, expectBalance, requireLockSettings } from './support.ts';

export const locksScenarios = [
  scenario(
    {
      id: 'balances.check-lock',
      title: 'a check with lock settings holds the units; balances.finalize confirm keeps them (or override_value instead), release gives them back',
      rules: [
        'CHECK-LOCK-RESERVES',
        'CHECK-LOCK-CONFIRM',
        'CHECK-LOCK-RELEASE',
        'CHECK-LOCK-WIRE',
        'BAL-FINALIZE-WIRE',
        'BAL-FINALIZE-SHAPE',
        'CHECK-BALANCE-ARITHMETIC',
        'CHECK-ALLOWED-SUFFICIENT',
        'CHECK-ALLOWED-BELOW-REQUIRED',
      ],
    },
    async (t) => {
      const { feature, mainPlan, customerId } = await consumable(t, 10);
      await requireLockSettings(t, mainPlan, feature.id);
      const hold = async (required: number, allowed: boolean) => {
        const lockId = t.ns.id('lock');
        const result = await ask(t, 'CHECK-LOCK-WIRE', { customer_id: customerId, feature_id: feature.id, required_balance: required, lock: { lock_id: lockId, enabled: true } });
        t.check(allowed ? 'CHECK-ALLOWED-SUFFICIENT' : 'CHECK-ALLOWED-BELOW-REQUIRED', () => expect(result.allowed, `a lock of ${required}`).toBe(allowed));
        return lockId;
      };
      // The answer's shape is BAL-FINALIZE-SHAPE's (checked by the client); that the call is taken, BAL-FINALIZE-WIRE's.
      const finalize = async (body: z.input<Ops['balances.finalize']['request']>) => t.expectOk(await t.client.call('balances.finalize', body), 'BAL-FINALIZE-WIRE');
      const balance = () => balanceNow(t, customerId, feature.id);

      const confirmed = await hold(4, true);
      expectBalance(t, 'CHECK-LOCK-RESERVES', await balance(), { granted: 10, usage: 4 }, 'a lock of 4 holds 4');
      await finalize({ lock_id: confirmed, action: 'confirm' });
      expectBalance(t, 'CHECK-LOCK-CONFIRM', await balance(), { granted: 10, usage: 4 }, 'confirm keeps the 4');

      const released = await hold(3, true);
      expectBalance(t, 'CHECK-LOCK-RESERVES', await balance(), { granted: 10, usage: 7 }, 'a lock of 3 holds 3');
      await finalize({ lock_id: released, action: 'release' });
      expectBalance(t, 'CHECK-LOCK-RELEASE', await balance(), { granted: 10, usage: 4 }, 'release gives the 3 back');

      const overridden = await hold(2, true);
      await finalize({ lock_id: overridden, action: 'confirm', override_value: 1 });
      expectBalance(t, 'CHECK-LOCK-CONFIRM', await balance(), { granted: 10, usage: 5 }, 'confirm with override_value 1 keeps 1 of the 2 held');

      await hold(9, false);
      expectBalance(t, 'CHECK-LOCK-RESERVES', await balance(), { granted: 10, usage: 5 }, 'a denied lock holds nothing');
    },
  ),
  scenario(
    {
      id: 'balances.lock-override-across-sources',
      title: 'confirming a lock that holds units of two grant sources with a smaller override_value keeps exactly that many',
      rules: ['CHECK-LOCK-CONFIRM', 'CHECK-ALLOWED-SUFFICIENT'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const main = await createPlan(t, { items: [{ feature_id: feature.id, included: 5, reset: MONTHLY }] });
      const addOn = await createPlan(t, { add_on: true, items: [{ feature_id: feature.id, included: 5, reset: MONTHLY }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, main.id);
      await attach(t, customer.id, addOn.id);
      await requireLockSettings(t, main, feature.id);
      const lockId = t.ns.id('lock');
      const held = await ask(t, 'CHECK-LOCK-CONFIRM', { customer_id: customer.id, feature_id: feature.id, required_balance: 8, lock: { lock_id: lockId, enabled: true } });
      t.check('CHECK-ALLOWED-SUFFICIENT', () => expect(held.allowed, 'the lock of 8 of the 10 units of both sources (more than either has)').toBe(true));
      t.setup(await t.client.call('balances.finalize', { lock_id: lockId, action: 'confirm', override_value: 2 }));
      const { balance } = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 0 }), ['balance']);
      t.check('CHECK-LOCK-CONFIRM', () => expect(balance?.usage, 'confirm with override_value 2 keeps 2 of the 8 held').toBe(2));
    },
  ),
  scenario(
    {
      id: 'balances.lock-override-above-held',
      title: 'confirming a lock with a larger override_value uses the extra units of the locked feature, not of another feature of the plan',
      rules: ['CHECK-LOCK-CONFIRM', 'CHECK-ALLOWED-SUFFICIENT'],
    },
    async (t) => {
      const [other, feature] = [await createFeature(t, 'consumable'), await createFeature(t, 'consumable')];
      const plan = await createPlan(t, {
        items: [
          { feature_id: other.id, included: 10, reset: MONTHLY },
          { feature_id: feature.id, included: 10, reset: MONTHLY },
        ],
      });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      await requireLockSettings(t, plan, feature.id);
      const lockId = t.ns.id('lock');
      const held = await ask(t, 'CHECK-LOCK-CONFIRM', { customer_id: customer.id, feature_id: feature.id, required_balance: 2, lock: { lock_id: lockId, enabled: true } });
      t.check('CHECK-ALLOWED-SUFFICIENT', () => expect(held.allowed, 'the lock of 2 of 10').toBe(true));
      t.setup(await t.client.call('balances.finalize', { lock_id: lockId, action: 'confirm', override_value: 4 }));
      const usage = async (featureId: string) =>
        t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: featureId, required_balance: 0 }), ['balance']).balance?.usage;
      const [own, others] = [await usage(feature.id), await usage(other.id)];
      t.check('CHECK-LOCK-CONFIRM', () => expect({ own, others }, 'override_value 4 uses 4 of the locked feature and none of the other').toEqual({ own: 4, others: 0 }));
    },
  ),
  scenario(
    {
      id: 'balances.check-lock-expiry',
      title: 'a lock with expires_at holds its units until the clock passes expires_at, then gives them back',
      rules: ['CHECK-LOCK-WIRE', 'CHECK-LOCK-RESERVES', 'CHECK-BALANCE-ARITHMETIC', 'CHECK-ALLOWED-SUFFICIENT'],
      needs: ['control-plane'],
    },
    async (t) => {
      const { feature, mainPlan, customerId } = await consumable(t, 10);
      await requireLockSettings(t, mainPlan, feature.id);
      const { now } = await t.control.call('clock.get', {});
      const locked = await ask(t, 'CHECK-LOCK-WIRE', { customer_id: customerId, feature_id: feature.id, required_balance: 4, lock: { lock_id: t.ns.id('lock'), enabled: true, expires_at: now + 60_000 } });
      t.check('CHECK-ALLOWED-SUFFICIENT', () => expect(locked.allowed, 'a lock of 4 out of 10').toBe(true));
      expectBalance(t, 'CHECK-LOCK-RESERVES', await balanceNow(t, customerId, feature.id), { granted: 10, usage: 4 }, 'the lock holds 4');
      await t.control.call('clock.advance', { ms: 30_000 });
      expectBalance(t, 'CHECK-LOCK-WIRE', await balanceNow(t, customerId, feature.id), { granted: 10, usage: 4 }, 'halfway to expires_at, the lock still holds 4');
      await t.control.call('clock.advance', { ms: 31_000 });
      expectBalance(t, 'CHECK-LOCK-WIRE', await balanceNow(t, customerId, feature.id), { granted: 10, usage: 0 }, 'past expires_at, the 4 are back');
    },
  ),
  scenario(
    {
      id: 'balances.lock-beside-entity-delete',
      title:
        "units held by a lock are not used for ever once an entity is deleted: a lock taken through the deleted entity, and a customer's lock beside a deleted entity, once released (or answered gone) leave the customer's units available again",
      rules: ['CHECK-LOCK-RELEASE', 'CHECK-LOCK-WIRE', 'BAL-FINALIZE-WIRE', 'CHECK-BALANCE-ARITHMETIC'],
    },
    async (t) => {
      const { feature, mainPlan, customerId: throughEntity } = await consumable(t, 10);
      await requireLockSettings(t, mainPlan, feature.id);
      const seats = await createFeature(t, 'allocated');
      const beside = await customerHolding(t, [mainPlan]);
      const release = (lockId: string) => t.client.call('balances.finalize', { lock_id: lockId, action: 'release' });
      const hold = async (customerId: string, required: number, entityId?: string) => {
        const lockId = t.ns.id('lock');
        await ask(t, 'CHECK-LOCK-WIRE', { customer_id: customerId, feature_id: feature.id, required_balance: required, lock: { lock_id: lockId, enabled: true }, ...(entityId !== undefined && { entity_id: entityId }) });
        // Premise, through the setup read customers.get: the lock holds units of the customer's own grant (how many a lock holds is
        // CHECK-LOCK-RESERVES', proven in balances.check-lock; whether a check through an entity draws on its customer's grant is the target's to show).
        const held = t.setup(await t.client.call('customers.get', { customer_id: customerId }), ['balances']);
        t.precondition(`the lock of ${required}${entityId === undefined ? '' : ` taken through entity ${entityId}`} holds ${required} of ${customerId}'s units`, () =>
          expect(held.balances[feature.id]?.usage).toBe(required),
        );
        return lockId;
      };
      /** Deletes the entity (setup), and makes sure it is gone. */
      const deleteEntity = async (customerId: string, entityId: string) => {
        t.setup(await t.client.call('entities.delete', { customer_id: customerId, entity_id: entityId }));
        requireNotRead(t, `entity ${entityId}`, await t.client.call('entities.get', { customer_id: customerId, entity_id: entityId }));
      };
      /** After its holder's entity is gone the lock may be released (200) or answered gone (a 4xx): either is the target's; a 5xx is a server fault. */
      const releaseAfterDelete = async (lockId: string) => {
        const answer = await release(lockId);
        if (!answer.ok) t.expectError(answer, { rule: 'BAL-FINALIZE-WIRE' });
      };

      // The control: with nothing deleted, a release is taken and gives the units back.
      const control = await hold(beside, 2);
      t.expectOk(await release(control), 'BAL-FINALIZE-WIRE');
      expectBalance(t, 'CHECK-LOCK-RELEASE', await balanceNow(t, beside, feature.id), { granted: 10, usage: 0 }, 'with nothing deleted, release gives the 2 held back');

      const entity = await createEntity(t, throughEntity, seats.id);
      const entitysLock = await hold(throughEntity, 4, entity.id);
      await deleteEntity(throughEntity, entity.id);
      await releaseAfterDelete(entitysLock);
      expectBalance(t, 'CHECK-LOCK-RELEASE', await balanceNow(t, throughEntity, feature.id), { granted: 10, usage: 0 }, 'the 4 held through the deleted entity are available again');

      const sibling = await createEntity(t, beside, seats.id);
      const customersLock = await hold(beside, 3);
      await deleteEntity(beside, sibling.id);
      await releaseAfterDelete(customersLock);
      expectBalance(t, 'CHECK-LOCK-RELEASE', await balanceNow(t, beside, feature.id), { granted: 10, usage: 0 }, "the customer's 3 held beside the deleted entity are available again");
    },
  ),
];
