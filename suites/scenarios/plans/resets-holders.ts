/**
 * Scenarios of resets across holders and the calendar: one clock move past a reset instant that
 * many customers and entities share, customers attached at staggered instants whose resets fall
 * one after another beside a lock and a deleted customer, two grants of one feature with different
 * intervals held by an entity, and monthly resets from the 31st into a shorter month.
 */
import { expect } from 'vitest';
import { inBatches } from '../../framework/index.ts';
import { attach, createCustomer, createEntity, createFeature, createPlan, type Ops, readBalance, requireNotRead, scenario, SETUP_WIDTH, type T, withFrozenClock } from '../../support.ts';
import type { z } from 'zod';
import { ask, requireLockSettings, usageAndRemaining } from '../balances/support.ts';
import type { ListBody } from '../entities/support.ts';
import { advancePast, DAY_MS, monthly, track } from './support.ts';

type ListPage = z.output<Ops['entities.list']['response']>;

const CUSTOMERS = 100;
const ENTITIES = 120;

/** Every entity of a customer with its balance of `featureId`, walking entities.list (a setup read). */
async function entityBalances(t: T, customerId: string, featureId: string) {
  const balances = new Map<string, { usage?: number; remaining?: number; next_reset_at?: number | null }>();
  for (let pages = 0, cursor: string | null = ''; cursor !== null && pages < 10; pages++) {
    const body: ListBody = { customer_id: customerId, limit: 5000, start_cursor: cursor };
    const page: ListPage = t.setup(await t.client.call('entities.list', body), ['list', 'next_cursor']);
    for (const entity of page.list) if (entity.customer_id === customerId) balances.set(entity.id, { ...usageAndRemaining(entity.balances?.[featureId]), next_reset_at: entity.balances?.[featureId]?.next_reset_at });
    cursor = page.next_cursor;
  }
  return balances;
}

/** The next instant at or after `from` that is noon (UTC) on the 31st of a month followed by a shorter month. */
function nextMonthEnd(from: number): number {
  for (let date = new Date(from); ; date = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1))) {
    const [year, month] = [date.getUTCFullYear(), date.getUTCMonth()];
    const at = Date.UTC(year, month, 31, 12);
    const daysInNext = new Date(Date.UTC(year, month + 2, 0)).getUTCDate();
    if (new Date(at).getUTCDate() === 31 && daysInNext < 31 && at >= from) return at;
  }
}

export const resetHoldersScenarios = [
  scenario(
    {
      id: 'plans.reset-over-many-holders',
      title: `one clock move past a reset instant shared by ${CUSTOMERS} customers on a plan and ${ENTITIES} entities holding a license seat resets every one of them, used or not`,
      rules: ['PLAN-CONSUMABLE-RESET', 'BAL-TRACK-DEDUCTS', 'PLAN-LICENSE-LINKS-OFFER'],
      needs: ['control-plane'],
    },
    async (t) => {
      const messages = await createFeature(t, 'consumable');
      const seat = await createFeature(t, 'allocated');
      const plan = await createPlan(t, { add_on: true, items: [monthly(messages.id, 10)] });
      const licensePlan = await createPlan(t, { items: [monthly(messages.id, 10)] });
      const parent = await createPlan(t, { group: t.ns.id('grp'), licenses: [{ license_plan_id: licensePlan.id, included: ENTITIES }] });
      const owner = await createCustomer(t);
      await withFrozenClock(t, async () => {
        // Every holder gets its grant at one instant: one batch of entities, the customers side by side.
        await attach(t, owner.id, parent.id);
        const { list: pools } = t.setup(await t.client.call('licenses.list', { customer_id: owner.id }), ['list']);
        t.check('PLAN-LICENSE-LINKS-OFFER', () => expect(pools.find((pool) => pool.license_plan_id === licensePlan.id)?.granted, `the parent plan offers ${ENTITIES} seats of the license plan`).toBe(ENTITIES));
        const items = Array.from({ length: ENTITIES }, () => {
          const entityId = t.ns.id('seat');
          return { entity_id: entityId, name: `Seat ${entityId}`, feature_id: seat.id };
        });
        t.setup(await t.client.call('licenses.attach', { customer_id: owner.id, plan_id: licensePlan.id, entities: items }));
        const customers = await inBatches(Array.from({ length: CUSTOMERS }), SETUP_WIDTH, async () => {
          const customer = await createCustomer(t);
          await attach(t, customer.id, plan.id);
          return customer.id;
        });
        const entities = items.map((item) => item.entity_id);

        // Five of each kind use 7 of their 10 units; one of each is read unused.
        const holders: { customerId: string; entityId?: string }[] = [...customers.slice(0, 6).map((id) => ({ customerId: id })), ...entities.slice(0, 6).map((id) => ({ customerId: owner.id, entityId: id }))];
        const used = holders.filter((_, i) => i % 6 !== 5);
        await inBatches(used, SETUP_WIDTH, async ({ customerId, entityId }) => {
          t.setup(await t.client.call('balances.track', { customer_id: customerId, feature_id: messages.id, value: 7, ...(entityId !== undefined && { entity_id: entityId }) }));
        });
        const read = await inBatches(holders, SETUP_WIDTH, async ({ customerId, entityId }) => {
          const body = { customer_id: customerId, feature_id: messages.id, required_balance: 0, ...(entityId !== undefined && { entity_id: entityId }) };
          return t.setup(await t.client.call('balances.check', body), ['balance']).balance;
        });
        t.check('BAL-TRACK-DEDUCTS', () =>
          expect(read.map(usageAndRemaining), 'five customers and five entities show the 7 units tracked, the sixth of each none').toEqual(holders.map((_, i) => (i % 6 === 5 ? { usage: 0, remaining: 10 } : { usage: 7, remaining: 3 }))),
        );
        const seats = await entityBalances(t, owner.id, messages.id);
        t.precondition(`entities.list shows the ${ENTITIES} entities with their seat's balance`, () => {
          expect(seats.size).toBe(ENTITIES);
          expect(entities.slice(0, 6).map((id) => usageAndRemaining(seats.get(id)))).toEqual(read.slice(6).map(usageAndRemaining));
        });

        const due = Math.max(...read.map((balance) => balance?.next_reset_at ?? 0), ...[...seats.values()].map((balance) => balance.next_reset_at ?? 0));
        await advancePast(t, due);
        const customersAfter = await inBatches(customers, SETUP_WIDTH, async (id) => [id, usageAndRemaining(await readBalance(t, id, messages.id))] as const);
        const seatsAfter = await entityBalances(t, owner.id, messages.id);
        const back = { usage: 0, remaining: 10 };
        t.check('PLAN-CONSUMABLE-RESET', () => {
          expect(customersAfter.filter(([, balance]) => balance.usage !== 0 || balance.remaining !== 10), `after the reset every one of the ${CUSTOMERS} customers is back at 10 units`).toEqual([]);
          expect(
            entities.filter((id) => JSON.stringify(usageAndRemaining(seatsAfter.get(id))) !== JSON.stringify(back)).map((id) => [id, seatsAfter.get(id)]),
            `and every one of the ${ENTITIES} entities`,
          ).toEqual([]);
          expect([...seatsAfter.values()].filter((balance) => !(balance.next_reset_at! > due)), 'each with its next reset ahead').toEqual([]);
        });
      });
    },
  ),
  scenario(
    {
      id: 'plans.staggered-resets-beside-lock-and-delete',
      title:
        'customers of one monthly plan attached days apart, one using units, one holding a lock, one deleted: each resets at its own next_reset_at, back at its included units, whatever the others hold or whether they are still there',
      rules: ['PLAN-CONSUMABLE-RESET', 'BAL-TRACK-DEDUCTS', 'CHECK-LOCK-RESERVES', 'CHECK-LOCK-WIRE'],
      needs: ['control-plane'],
    },
    async (t) => {
      const messages = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { add_on: true, items: [monthly(messages.id, 10)] });
      await requireLockSettings(t, plan, messages.id);
      await withFrozenClock(t, async () => {
        // Attached 2 days and 5 hours apart, so that their resets fall one after another; the deleted one in the middle of them.
        let first = true;
        const attachNext = async (role: string) => {
          if (!first) await t.control.call('clock.advance', { ms: 2 * DAY_MS + 5 * 3_600_000 });
          first = false;
          const { now } = await t.control.call('clock.get', {});
          const customer = await createCustomer(t);
          await attach(t, customer.id, plan.id);
          return { role, id: customer.id, attachedAt: now };
        };
        const tracker = await attachNext('tracks 3');
        const locker = await attachNext('holds a lock of 4');
        const deleted = await attachNext('is deleted');
        const bigTracker = await attachNext('tracks 6');
        const idle = await attachNext('uses nothing');
        await track(t, tracker.id, messages.id, 3);
        await ask(t, 'CHECK-LOCK-WIRE', { customer_id: locker.id, feature_id: messages.id, required_balance: 4, lock: { lock_id: t.ns.id('lock'), enabled: true } });
        await track(t, deleted.id, messages.id, 5);
        await track(t, bigTracker.id, messages.id, 6);

        const kept = [tracker, locker, bigTracker, idle];
        const readAll = async () => {
          const read = [];
          for (const holder of kept) read.push(await readBalance(t, holder.id, messages.id));
          return read;
        };
        const before = await readAll();
        // Usage only: what remaining shows beside it is CHECK-BALANCE-ARITHMETIC's, proven elsewhere.
        t.check('CHECK-LOCK-RESERVES', () => expect(before[1]?.usage, "the lock of 4 holds 4 of its customer's 10").toBe(4));
        t.check('BAL-TRACK-DEDUCTS', () =>
          expect([before[0], before[2], before[3]].map((balance) => balance?.usage), 'the customers tracking 3 and 6 show them used, the one using nothing none').toEqual([3, 6, 0]),
        );
        t.check('PLAN-CONSUMABLE-RESET', () => {
          for (const [i, holder] of kept.entries()) {
            const next = before[i]?.next_reset_at;
            expect(typeof next, `the customer that ${holder.role} has a next reset, seen ${JSON.stringify(next)}`).toBe('number');
            expect(next! - holder.attachedAt, `the customer that ${holder.role} next resets a month (28 to 31 days) after its own attach`).toBeGreaterThanOrEqual(28 * DAY_MS);
            expect(next! - holder.attachedAt).toBeLessThanOrEqual(31 * DAY_MS);
          }
        });

        t.setup(await t.client.call('customers.delete', { customer_id: deleted.id }));
        requireNotRead(t, `customer ${deleted.id}`, await t.client.call('customers.get', { customer_id: deleted.id }));

        /**
         * What each kept customer shows at `at`: back at 10 once its own reset is due, else as before.
         * Whether a reset also ends a hold still outstanding interface.md does not say: the customer
         * holding the lock uses nothing again, or still exactly its 4.
         */
        const expectAt = async (at: number, when: string) => {
          const after = await readAll();
          t.check('PLAN-CONSUMABLE-RESET', () => {
            for (const [i, holder] of kept.entries()) {
              const due = before[i]!.next_reset_at! <= at;
              const seen = after[i]?.usage;
              const what = `${when}, the customer that ${holder.role} (next reset ${new Date(before[i]!.next_reset_at!).toISOString()}, ${due ? 'due' : 'not yet due'})`;
              if (!due) expect(seen, `${what} is as before`).toBe(before[i]!.usage);
              else if (holder === locker) expect([0, 4], `${what} uses nothing, or still holds its 4, seen ${String(seen)}`).toContain(seen);
              else expect(seen, `${what} is back at its 10 units, none used`).toBe(0);
              if (due) expect(after[i]?.next_reset_at, `${what} next resets a month later`).toBeGreaterThan(before[i]!.next_reset_at!);
            }
          });
        };
        // First past the second of the four resets, then past every one.
        const resets = before.map((balance) => balance!.next_reset_at!).sort((a, b) => a - b);
        await advancePast(t, resets[1]!);
        await expectAt(resets[1]! + 1_000, 'past the second reset');
        await advancePast(t, resets[3]!);
        await expectAt(resets[3]! + 1_000, 'past every reset');
      });
    },
  ),
  scenario(
    {
      id: 'plans.entity-grants-of-two-intervals',
      title: 'an entity holding two grants of one feature, 20 a month and 5 a day, used up: a day later only the daily 5 are back, a month later all 25',
      rules: ['PLAN-CONSUMABLE-RESET', 'BAL-TRACK-DEDUCTS'],
      needs: ['control-plane'],
    },
    async (t) => {
      const messages = await createFeature(t, 'consumable');
      const seat = await createFeature(t, 'allocated');
      const main = await createPlan(t, { group: t.ns.id('grp'), items: [monthly(messages.id, 20)] });
      const daily = await createPlan(t, { add_on: true, items: [{ feature_id: messages.id, included: 5, reset: { interval: 'day' } }] });
      const customer = await createCustomer(t);
      const entity = await createEntity(t, customer.id, seat.id);
      const entityBalance = async () => usageAndRemaining(t.setup(await t.client.call('balances.check', { customer_id: customer.id, entity_id: entity.id, feature_id: messages.id, required_balance: 0 }), ['balance']).balance);
      await withFrozenClock(t, async () => {
        for (const plan of [main, daily]) await attach(t, customer.id, plan.id, { entity_id: entity.id });
        t.setup(await t.client.call('balances.track', { customer_id: customer.id, entity_id: entity.id, feature_id: messages.id, value: 25 }));
        const used = await entityBalance();
        t.check('BAL-TRACK-DEDUCTS', () => expect(used, "the 25 units tracked use up the entity's two grants").toEqual({ usage: 25, remaining: 0 }));
        await t.control.call('clock.advance', { ms: DAY_MS + 1_000 });
        const nextDay = await entityBalance();
        await t.control.call('clock.advance', { ms: 31 * DAY_MS });
        const nextMonth = await entityBalance();
        t.check('PLAN-CONSUMABLE-RESET', () => {
          expect(nextDay, 'a day later the daily grant is back at its 5 units, the monthly one still used').toEqual({ usage: 20, remaining: 5 });
          expect(nextMonth, 'a month later both are back').toEqual({ usage: 0, remaining: 25 });
        });
      });
    },
  ),
  scenario(
    {
      id: 'plans.resets-across-month-ends',
      title: 'a monthly balance attached at noon on the 31st of a month followed by a shorter one resets within a month, twice in a row, back at its included units each time',
      rules: ['PLAN-CONSUMABLE-RESET', 'BAL-TRACK-DEDUCTS'],
      needs: ['control-plane'],
    },
    async (t) => {
      const messages = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { add_on: true, items: [monthly(messages.id, 10)] });
      const { now } = await t.control.call('clock.get', {});
      await withFrozenClock(t, async () => {
        const monthEnd = nextMonthEnd(now);
        await t.control.call('clock.set', { now: monthEnd });
        const customer = await createCustomer(t);
        await attach(t, customer.id, plan.id);
        let previous = monthEnd;
        for (const cycle of [1, 2]) {
          await track(t, customer.id, messages.id, 4);
          const before = await readBalance(t, customer.id, messages.id);
          const { now: at } = await t.control.call('clock.get', {});
          t.check('BAL-TRACK-DEDUCTS', () => expect(usageAndRemaining(before), `month ${cycle}: before its reset the 4 units tracked are used`).toEqual({ usage: 4, remaining: 6 }));
          t.check('PLAN-CONSUMABLE-RESET', () => {
            expect(before?.next_reset_at, `month ${cycle}: the next reset lies ahead`).toBeGreaterThan(at);
            expect(before!.next_reset_at! - previous, `month ${cycle}: the next reset is a month after the last (28 to 31 days)`).toBeGreaterThanOrEqual(28 * DAY_MS);
            expect(before!.next_reset_at! - previous).toBeLessThanOrEqual(31 * DAY_MS);
          });
          await advancePast(t, before!.next_reset_at!);
          const after = await readBalance(t, customer.id, messages.id);
          t.check('PLAN-CONSUMABLE-RESET', () => expect(usageAndRemaining(after), `month ${cycle}: after its reset the balance is back at 10`).toEqual({ usage: 0, remaining: 10 }));
          previous = before!.next_reset_at!;
        }
      });
    },
  ),
];
