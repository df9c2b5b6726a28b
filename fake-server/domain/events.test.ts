/** The recorded usage events as events.list pages through them, without a socket. */
import { describe, expect, it } from 'vitest';
import { controlCalls } from '../../spec/control-plane.ts';
import { listEvents } from './events.ts';
import { createTestFeatures, domainErrorCode, tenantPerTest } from './testing.ts';

const tenant = tenantPerTest(1_795_328_341_817, createTestFeatures);

/** Records `count` events for a customer, with values 1..count. */
function track(customerId: string, count: number): void {
  tenant.call('customers.get_or_create', { customer_id: customerId });
  for (let value = 1; value <= count; value++) tenant.call('balances.track', { customer_id: customerId, feature_id: 'messages', value, overage_behavior: 'overflow' });
}

function page(body: Record<string, unknown>) {
  return listEvents(tenant.ctx.store, controlCalls['events.list'].request.parse(body));
}

describe('events.list', () => {
  it('pages oldest first, `limit` at a time, each page continuing where the last stopped, and ends with has_more false', () => {
    track('cus_a', 5);
    const first = page({ limit: 2 });
    expect(first.list.map((event) => event.value)).toEqual([1, 2]);
    expect(first.has_more).toBe(true);
    const second = page({ limit: 2, start_cursor: first.next_cursor });
    expect(second.list.map((event) => event.value)).toEqual([3, 4]);
    const last = page({ limit: 2, start_cursor: second.next_cursor });
    expect(last).toMatchObject({ has_more: false, next_cursor: null });
    expect(last.list.map((event) => event.value)).toEqual([5]);
    expect(page({}).list).toHaveLength(5);
  });

  it('filters by customer across pages, and a cursor stays valid while events are added', () => {
    track('cus_a', 2);
    track('cus_b', 2);
    const first = page({ customer_id: 'cus_b', limit: 1 });
    expect(first.list).toMatchObject([{ customer_id: 'cus_b', value: 1 }]);
    track('cus_b', 1);
    const rest = page({ customer_id: 'cus_b', limit: 10, start_cursor: first.next_cursor });
    expect(rest.list.map((event) => [event.customer_id, event.value])).toEqual([
      ['cus_b', 2],
      ['cus_b', 1],
    ]);
  });

  it('refuses a cursor that names no position of this log with invalid_cursor', () => {
    track('cus_a', 1);
    expect(domainErrorCode(() => page({ start_cursor: 'garbage!' }))).toBe('invalid_cursor');
    const foreign = Buffer.from(JSON.stringify({ v: 1, t: 0, id: 'evt_not_here' })).toString('base64url');
    expect(domainErrorCode(() => page({ start_cursor: foreign }))).toBe('invalid_cursor');
  });
});
