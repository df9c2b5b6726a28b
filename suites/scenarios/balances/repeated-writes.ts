/**
 * Scenarios of identical writes repeated over one keep-alive connection: interface.md knows no
 * idempotency for balances.track or a send_event check (the reference's only comes with an
 * Idempotency-Key header, which these requests do not carry), so each one counts.
 */
import { oneConnection, scenario } from '../../support.ts';
import { balanceNow, consumable, expectBalance, SPEND_RULES, spend } from './support.ts';

export const repeatedWritesScenarios = [
  scenario(
    {
      id: 'balances.identical-writes-on-one-connection',
      title: 'the same balances.track body twice in a row, and the same send_event check twice in a row, over one keep-alive connection: each counts',
      rules: ['BAL-TRACK-DEDUCTS', 'CHECK-BALANCE-ARITHMETIC', ...SPEND_RULES],
    },
    async (t) => {
      const { feature, customerId } = await consumable(t, 30);
      const connection = oneConnection(t);
      try {
        // Not retried: a retry after a dropped connection could count a write twice, and every write here must count exactly once.
        const onIt = { dispatcher: connection.dispatcher, retry: false } as const;
        // Each body once through the shared connections first: what one such write does, proven by its own rules.
        const track = { customer_id: customerId, feature_id: feature.id, value: 3 };
        t.setup(await t.client.call('balances.track', track));
        expectBalance(t, 'BAL-TRACK-DEDUCTS', await balanceNow(t, customerId, feature.id), { granted: 30, usage: 3 }, 'one track of 3');
        t.expectOk(await t.client.call('balances.track', track, onIt), 'BAL-TRACK-DEDUCTS');
        t.expectOk(await t.client.call('balances.track', track, onIt), 'BAL-TRACK-DEDUCTS');
        expectBalance(t, 'BAL-TRACK-DEDUCTS', await balanceNow(t, customerId, feature.id), { granted: 30, usage: 9 }, 'the same track of 3 twice in a row over one connection: each counts');

        await spend(t, customerId, feature.id, 2, true);
        const sendEvent = { customer_id: customerId, feature_id: feature.id, required_balance: 2, send_event: true };
        t.expectOk(await t.client.call('balances.check', sendEvent, onIt), 'CHECK-SEND-EVENT-RECORDS');
        t.expectOk(await t.client.call('balances.check', sendEvent, onIt), 'CHECK-SEND-EVENT-RECORDS');
        expectBalance(t, 'CHECK-SEND-EVENT-RECORDS', await balanceNow(t, customerId, feature.id), { granted: 30, usage: 15 }, 'the same send_event check of 2 twice in a row over one connection: each counts');

        if (connection.connects() !== 1) {
          const why = `the target did not keep the connection open: the four repeated writes went over ${connection.connects()} connections`;
          t.notVerified('BAL-TRACK-DEDUCTS', why);
          t.notVerified('CHECK-SEND-EVENT-RECORDS', why);
        }
      } finally {
        await connection.dispatcher.close();
      }
    },
  ),
];
