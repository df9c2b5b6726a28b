/**
 * Scenarios of what a record reports as the clock moves: the billing period it is in, after several
 * periods and after it expired, and the end of a trial once the trial is over. Moving the clock needs
 * the control plane.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createPlan, scenario, type T } from '../../support.ts';
import { DAY, now, recordOf } from './support.ts';

/** A customer holding a monthly paid plan, and its record's first billing period (setup; that the record reports one is a premise). */
async function firstPeriodOf(t: T, planId: string) {
  const customer = await createCustomer(t);
  await attach(t, customer.id, planId);
  const first = await recordOf(t, customer.id, planId);
  const firstEnd = first?.current_period_end;
  t.precondition('the paid plan reports its first billing period', () => expect(firstEnd).toEqual(expect.any(Number)));
  return { customer, first: first!, firstEnd: firstEnd! };
}

export const periodsScenarios = [
  scenario(
    {
      id: 'lifecycle.current-period-after-two',
      title: 'after two monthly periods have passed in one clock move, the record reports the period the clock is now in',
      rules: ['LIST-CURRENT-PERIOD'],
      needs: ['control-plane', 'paid-attach'],
    },
    async (t) => {
      const plan = await createPlan(t, { group: t.ns.id('grp'), price: { amount: 20, interval: 'month' } });
      const { customer, firstEnd } = await firstPeriodOf(t, plan.id);
      // Past the first period's end and the next one's (at most 31 days later).
      await t.control.call('clock.advance', { ms: firstEnd - (await now(t)) + 40 * DAY });
      const later = await recordOf(t, customer.id, plan.id);
      const at = await now(t);
      t.precondition('the plan is still held', () => expect(later?.status).toBe('active'));
      const [start, end] = [later!.current_period_start, later!.current_period_end];
      t.check('LIST-CURRENT-PERIOD', () => {
        expect(start, 'the current period started after the first one ended').toBeGreaterThan(firstEnd);
        expect(start!, 'the current period has started').toBeLessThanOrEqual(at);
        expect(end!, 'and not ended').toBeGreaterThan(at);
        expect(end! - start!, 'it is one month long').toBeLessThanOrEqual(31 * DAY);
      });
    },
  ),
  scenario(
    {
      id: 'lifecycle.expired-keeps-its-last-period',
      title: 'monthly plans that expire halfway through their second period, and exactly at the end of their first, report after a clock move of months the period they expired in',
      rules: ['LIST-CURRENT-PERIOD'],
      needs: ['control-plane', 'paid-attach'],
    },
    async (t) => {
      const plan = await createPlan(t, { group: t.ns.id('grp'), price: { amount: 20, interval: 'month' } });
      /** A customer's record of the plan, due to expire at `firstEnd + offset` (its first period's end plus an offset). */
      const expiring = async (offset: number) => {
        const { customer, first, firstEnd } = await firstPeriodOf(t, plan.id);
        const expiresAt = firstEnd + offset;
        await t.control.call('records.force_state', { record_id: first.id, state: 'expired', at: expiresAt });
        return { customer, record: first, firstStart: first.current_period_start, firstEnd, expiresAt };
      };
      // Each period is at least 28 days long, so 14 days after the first one ends is halfway through the second.
      const [midway, atTheEnd] = [await expiring(14 * DAY), await expiring(0)];
      // One clock move, past both expiries and three more periods.
      await t.control.call('clock.advance', { ms: midway.expiresAt - (await now(t)) + 100 * DAY });
      const listed = async ({ customer, record, expiresAt }: typeof midway) => {
        const { list } = t.setup(await t.client.call('subscriptions.list', { customer_id: customer.id, plan_id: plan.id, statuses: ['expired'] }), ['list']);
        const expired = list.find((row) => row.id === record.id);
        t.precondition('the record is listed as expired, at its expiry time', () => expect(expired).toMatchObject({ status: 'expired', expires_at: expiresAt }));
        return { start: expired!.current_period_start, end: expired!.current_period_end };
      };
      const [midwayPeriod, atTheEndPeriod] = [await listed(midway), await listed(atTheEnd)];
      t.check('LIST-CURRENT-PERIOD', () => {
        expect(midwayPeriod.start, 'expired midway, its last period started when the first one ended').toBe(midway.firstEnd);
        expect(midwayPeriod.end!, 'and had not ended when it expired').toBeGreaterThan(midway.expiresAt);
        expect(midwayPeriod.end! - midwayPeriod.start!, 'one month long').toBeLessThanOrEqual(31 * DAY);
        expect(atTheEndPeriod, 'expired the very millisecond its first period ended, it never lived in the second').toEqual({ start: atTheEnd.firstStart, end: atTheEnd.firstEnd });
      });
    },
  ),

  scenario(
    {
      id: 'lifecycle.trial-over',
      title: "once a plan's 7-day trial is over, its record's trial_ends_at reads null",
      rules: ['LIST-TRIAL-ENDS-WHILE-TRIALING'],
      needs: ['control-plane', 'paid-attach'],
    },
    async (t) => {
      const trialPlan = await createPlan(t, { group: t.ns.id('grp'), price: { amount: 20, interval: 'month' }, free_trial: { duration_length: 7, duration_type: 'day', card_required: false } });
      const plainPlan = await createPlan(t, { add_on: true });
      const customer = await createCustomer(t);
      await attach(t, customer.id, trialPlan.id);
      await attach(t, customer.id, plainPlan.id);
      const trialing = await recordOf(t, customer.id, trialPlan.id);
      t.precondition('the plan started on its trial', () => expect(trialing?.trial_ends_at).toEqual(expect.any(Number)));
      await t.control.call('clock.advance', { ms: trialing!.trial_ends_at! - (await now(t)) + DAY });
      const [after, plain] = [await recordOf(t, customer.id, trialPlan.id), await recordOf(t, customer.id, plainPlan.id)];
      // A record without a trial reading null is LIST-TRIAL-ENDS-NULL's.
      t.precondition('a plan without a trial reads trial_ends_at null', () => expect(plain?.trial_ends_at).toBeNull());
      t.precondition('the plan is still held', () => expect(after?.status).toBe('active'));
      t.check('LIST-TRIAL-ENDS-WHILE-TRIALING', () => expect(after!.trial_ends_at, 'the trial is over').toBeNull());
    },
  ),
];
