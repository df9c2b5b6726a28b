/**
 * Keys the caller chooses (metadata and property keys, feature IDs) round-trip whatever they are,
 * `__proto__` and other Object.prototype names included. Bodies are parsed with JSON.parse, as the
 * router does, so `__proto__` arrives as an own key.
 */
import { describe, expect, it } from 'vitest';
import { createTestFeatures, tenantPerTest } from './testing.ts';

const NOW = 1_795_328_341_817;
const tenant = tenantPerTest(NOW, createTestFeatures);
const { call } = tenant;

const PROTOTYPE_KEYS = '{"__proto__": {"polluted": true}, "constructor": 1, "toString": "x", "hasOwnProperty": null}';

describe('keys named like Object.prototype members', () => {
  it('metadata keys round-trip through customers.get_or_create and customers.get, and nothing is polluted', () => {
    const metadata = JSON.parse(PROTOTYPE_KEYS) as Record<string, unknown>;
    const created = call('customers.get_or_create', { customer_id: 'cus_keys', metadata });
    expect(Object.keys(created.metadata)).toEqual(['__proto__', 'constructor', 'toString', 'hasOwnProperty']);
    expect(JSON.stringify(call('customers.get', { customer_id: 'cus_keys' }).metadata)).toBe(JSON.stringify(JSON.parse(PROTOTYPE_KEYS)));
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('plan metadata keeps a __proto__ key', () => {
    const created = call('plans.create', { plan_id: 'keys', name: 'Keys', metadata: JSON.parse(PROTOTYPE_KEYS) as Record<string, unknown> });
    expect(Object.keys(created.metadata ?? {})).toContain('__proto__');
    expect(JSON.stringify(call('plans.get', { plan_id: 'keys' }).metadata)).toContain('"__proto__":{"polluted":true}');
  });

  it('a feature with ID __proto__ appears in the balances of customers.get and of balances.check and track', () => {
    call('features.create', { feature_id: '__proto__', name: 'Proto', type: 'metered', consumable: true });
    call('plans.create', { plan_id: 'proto', name: 'Proto', auto_enable: true, items: [{ feature_id: '__proto__', included: 10, reset: { interval: 'month' } }] });
    const customer = call('customers.get_or_create', { customer_id: 'cus_proto' });
    expect(Object.keys(customer.balances)).toEqual(['__proto__']);
    expect(Object.hasOwn(call('balances.check', { customer_id: 'cus_proto', feature_id: '__proto__' }).balances, '__proto__')).toBe(true);
    const tracked = call('balances.track', { customer_id: 'cus_proto', feature_id: '__proto__', value: 3 });
    expect(Object.keys(tracked.balances ?? {})).toEqual(['__proto__']);
    expect(call('customers.get', { customer_id: 'cus_proto' }).balances['__proto__']).toMatchObject({ usage: 3, remaining: 7 });
  });
});
