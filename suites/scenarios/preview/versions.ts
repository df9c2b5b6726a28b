/**
 * Scenarios of a customer left on an older version of a plan whose prices changed since: what the
 * preview of cancelling it refunds and bills is what the customer's version charged, not the latest.
 */
import { expect } from 'vitest';
import type { z } from 'zod';
import type { PlansUpdateRequest } from '../../../spec/plans.ts';
import { attach, createCustomer, createFeature, createPlan, readBalance, scenario, type Ops } from '../../support.ts';
import { cancelNow, CENT, preview } from './support.ts';

/** Yearly prices and resets, so that another scenario moving the shared clock by a month changes little of the period and resets nothing. */
const YEARLY = { interval: 'year' } as const;

type PlanChange = Omit<z.input<typeof PlansUpdateRequest>, 'plan_id'>;

/** A paid plan at version 1, the change that makes version 2 cost ten times as much, and what a customer on version 1 paid for its period. */
interface PriceCase {
  readonly what: string;
  readonly first: Parameters<typeof createPlan>[1];
  readonly second: PlanChange;
  readonly paid: number;
  readonly attachWith?: Partial<z.input<Ops['billing.attach']['request']>>;
}

export const previewVersionsScenarios = [
  scenario(
    {
      id: 'preview.refund-of-older-version',
      title:
        'a customer on version 1 of a plan whose base price, or the price of its prepaid seats, rose tenfold in version 2: cancelling at once refunds in every refund mode at most what version 1 charged, and with full exactly that',
      rules: ['PREV-REFUND-MODE'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const seatsAt = (amount: number) => ({ items: [{ feature_id: seats.id, included: 0, price: { amount, ...YEARLY, billing_method: 'prepaid' as const } }] });
      const cases: PriceCase[] = [
        { what: 'the base price', first: { price: { amount: 120, ...YEARLY } }, second: { price: { amount: 1200, ...YEARLY } }, paid: 120 },
        { what: 'the price of 3 prepaid seats', first: seatsAt(10), second: seatsAt(100), paid: 30, attachWith: { feature_quantities: [{ feature_id: seats.id, quantity: 3 }] } },
      ];
      for (const { what, first, second, paid, attachWith } of cases) {
        const plan = await createPlan(t, { group: t.ns.id('grp'), ...first });
        const customer = await createCustomer(t);
        await attach(t, customer.id, plan.id, attachWith);
        if (attachWith) {
          const bought = await readBalance(t, customer.id, seats.id);
          t.precondition('the 3 prepaid seats were bought at attach', () => expect(bought?.granted).toBe(3));
        }
        // A change in place would change what version 1 charges too (VER-PLAN-VERSION-INCREASES's), so only a new version is asked about.
        const next = t.setup(await t.client.call('plans.update', { plan_id: plan.id, ...second }));
        t.precondition(`${what} rose in a new version`, () => expect(next.version).toBe(plan.version + 1));

        for (const mode of [undefined, 'prorated', 'full'] as const) {
          const result = await preview(t, { customer_id: customer.id, updates: cancelNow([plan.id]), ...(mode && { refund_last_payment: mode }) }, 'PREV-REFUND-MODE');
          const refund = `cancelling at once ${mode === undefined ? 'without a refund mode' : `with ${mode}`} (${what}: ${paid} paid on version 1, ${paid * 10} on version 2) refunds ${result.total}`;
          t.check('PREV-REFUND-MODE', () => {
            // Whatever share of the period is unused, no mode refunds more than the last payment, which version 1's price made.
            expect(result.total, `${refund}: at most the last payment`).toBeGreaterThanOrEqual(-paid - CENT);
            expect(result.total, `${refund}: a refund, nothing due`).toBeLessThanOrEqual(0);
            if (mode === 'full') expect(Math.abs(result.total + paid), `${refund}: the entire last payment`).toBeLessThanOrEqual(CENT);
          });
        }
      }
    },
  ),
  scenario(
    {
      id: 'preview.overage-of-older-version',
      title: 'a customer on version 1 of a usage-only plan whose usage price rose in version 2: cancelling at once bills its usage beyond the included amount at the price of version 1',
      rules: ['PREV-USAGE-OVERAGE-BILLED'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const calls = await createFeature(t, 'consumable');
      const pricedAt = (amount: number) => ({ items: [{ feature_id: calls.id, included: 10, reset: YEARLY, price: { amount, ...YEARLY, billing_method: 'usage_based' as const } }] });
      // No base price and nothing prepaid: nothing is refunded, so the total is the usage charge alone.
      const plan = await createPlan(t, { group: t.ns.id('grp'), ...pricedAt(0.5) });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const next = t.setup(await t.client.call('plans.update', { plan_id: plan.id, ...pricedAt(2) }));
      t.precondition('the usage price rose in a new version', () => expect(next.version).toBe(plan.version + 1));
      const used = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: calls.id, required_balance: 17, send_event: true }), ['allowed']);
      const balance = await readBalance(t, customer.id, calls.id);
      t.precondition('17 units are recorded, 7 beyond the 10 included', () => {
        expect(used.allowed).toBe(true);
        expect(balance?.usage).toBe(17);
      });
      const result = await preview(t, { customer_id: customer.id, updates: cancelNow([plan.id]) }, 'PREV-USAGE-OVERAGE-BILLED');
      t.check('PREV-USAGE-OVERAGE-BILLED', () =>
        expect(Math.abs(result.total - 3.5), `7 units beyond at version 1's 0.50 are due today: 3.50, not ${result.total} (version 2 prices them at 14.00)`).toBeLessThan(CENT / 2),
      );
    },
  ),
];
