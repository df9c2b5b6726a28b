/**
 * Random sequences of checks (with and without send_event) and tracks against a model of one balance
 * fed by a plan and an add-on.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { RuleId } from '../../../spec/rules/catalogue.ts';
import { checkProperty, createFeature, createPlan, MONTHLY, scenario } from '../../support.ts';
import { ask, balanceNow, bySource, customerHolding, expectBalance, sources, spend } from './support.ts';

/**
 * A small independent model of one consumable balance fed by two grant sources (a main plan and an
 * add-on). Checks allow up to what remains; send_event and track use units; track never takes more
 * than what remains (`overage_behavior: cap`). Which source a unit comes from is left to the target,
 * so the model keeps totals only.
 */
class ConsumableModel {
  usage = 0;
  constructor(readonly granted: number) {}

  get remaining(): number {
    return this.granted - this.usage;
  }

  check(required: number, sendEvent: boolean): boolean {
    const allowed = required <= this.remaining;
    if (allowed && sendEvent) this.usage += required;
    return allowed;
  }

  track(value: number): void {
    this.usage += Math.min(value, this.remaining);
  }
}

type Step = { readonly kind: 'check'; readonly required: number; readonly sendEvent: boolean } | { readonly kind: 'track'; readonly value: number };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('check' as const), required: fc.integer({ min: 0, max: 12 }), sendEvent: fc.boolean() }),
  fc.record({ kind: fc.constant('track' as const), value: fc.integer({ min: 1, max: 6 }) }),
);

/** The rule a model step's effect on usage proves, decided from the model before the step is applied. */
function usageRuleOf(step: Step, allowed: boolean): RuleId {
  if (step.kind === 'track') return 'BAL-TRACK-DEDUCTS';
  if (!step.sendEvent) return 'EVT-ONLY-WITH-SEND-EVENT';
  return allowed ? 'EVT-AMOUNT-IS-REQUIRED-BALANCE' : 'CHECK-SEND-EVENT-ATOMIC';
}

export const modelScenarios = [
  scenario(
    {
      id: 'balances.check-model',
      title: 'random sequences of checks (with and without send_event) and tracks agree with a model of one balance fed by a plan and an add-on',
      rules: [
        'CHECK-BALANCE-ARITHMETIC',
        'CHECK-BREAKDOWN-PER-SOURCE',
        'CHECK-ALLOWED-SUFFICIENT',
        'CHECK-ALLOWED-BELOW-REQUIRED',
        'CHECK-SEND-EVENT-RECORDS',
        'CHECK-SEND-EVENT-ATOMIC',
        'EVT-ONLY-WITH-SEND-EVENT',
        'EVT-AMOUNT-IS-REQUIRED-BALANCE',
        'BAL-TRACK-DEDUCTS',
      ],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      // Premise: a send_event uses the amount asked for (EVT-AMOUNT-IS-REQUIRED-BALANCE), on which the model's allow decisions rest.
      const warmUp = await customerHolding(t, [await createPlan(t, { items: [{ feature_id: feature.id, included: 5, reset: MONTHLY }] })]);
      await spend(t, warmUp, feature.id, 4, true);
      const property = fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 4 }), fc.array(stepArbitrary, { minLength: 1, maxLength: 8 }), async (main, addOn, steps) => {
        const mainPlan = await createPlan(t, { items: [{ feature_id: feature.id, included: main, reset: MONTHLY }] });
        const addOnPlan = await createPlan(t, { add_on: true, items: [{ feature_id: feature.id, included: addOn, reset: MONTHLY }] });
        const customerId = await customerHolding(t, [mainPlan, addOnPlan]);
        const model = new ConsumableModel(main + addOn);
        for (const [i, step] of steps.entries()) {
          const label = `step ${i} (${JSON.stringify(step)}) on main ${main} + add-on ${addOn}`;
          const before = model.usage;
          let usageRule: RuleId;
          if (step.kind === 'check') {
            const allowed = model.check(step.required, step.sendEvent);
            const allowRule = allowed ? 'CHECK-ALLOWED-SUFFICIENT' : 'CHECK-ALLOWED-BELOW-REQUIRED';
            const result = await ask(t, allowRule, { customer_id: customerId, feature_id: feature.id, required_balance: step.required, send_event: step.sendEvent });
            t.check(allowRule, () => expect(result.allowed, `${label}: allowed`).toBe(allowed));
            usageRule = usageRuleOf(step, allowed);
          } else {
            t.expectOk(await t.client.call('balances.track', { customer_id: customerId, feature_id: feature.id, value: step.value, overage_behavior: 'cap' }), 'BAL-TRACK-DEDUCTS');
            model.track(step.value);
            usageRule = usageRuleOf(step, true);
          }
          const after = await balanceNow(t, customerId, feature.id);
          if (usageRule === 'EVT-AMOUNT-IS-REQUIRED-BALANCE' && model.usage > before) {
            t.check('CHECK-SEND-EVENT-RECORDS', () => expect(after.usage, `${label}: the send_event recorded usage`).toBeGreaterThan(before));
          }
          expectBalance(t, usageRule, after, { granted: model.granted, usage: model.usage }, label);
          t.check('CHECK-BREAKDOWN-PER-SOURCE', () => expect(sources(after), `${label}: one breakdown entry per source`).toEqual(bySource([[mainPlan.id, main], [addOnPlan.id, addOn]])));
        }
      });
      await checkProperty(t, property, 15);
    },
  ),
];
