/**
 * The bounds this project adds where interface.md states none (their descriptions say so):
 * IDs a call creates are at most ID_MAX_LENGTH long, and numbers the fake computes with are finite
 * and at most MAX_AMOUNT in magnitude. Plus the one ID rule for customers, however they are created.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ID_MAX_LENGTH, MAX_AMOUNT } from './common.ts';
import { operations, type OperationName } from './operations.ts';

function accepts(operation: OperationName, body: unknown): boolean {
  return (operations[operation].request as z.ZodType).safeParse(body).success;
}

/** Each call that creates something under an ID of the caller's, a body that creates it with `id`. */
const CREATING: readonly [OperationName, (id: string) => unknown][] = [
  ['customers.get_or_create', (id) => ({ customer_id: id })],
  ['entities.create', (id) => ({ customer_id: 'cus', entity_id: id, feature_id: 'seats' })],
  ['entities.create', (id) => ({ customer_id: id, entity_id: 'ent', feature_id: 'seats' })],
  ['features.create', (id) => ({ feature_id: id, name: 'F', type: 'boolean' })],
  ['plans.create', (id) => ({ plan_id: id, name: 'P' })],
  ['licenses.attach', (id) => ({ customer_id: 'cus', plan_id: 'seat', entities: [{ entity_id: id, name: 'E', feature_id: 'seats' }] })],
  ['rewards.create', (id) => ({ feature_grant: { id, name: 'R', grants: [{ feature_id: 'f', included: 1, expiry: null }], promo_codes: [{ code: 'c', max_uses: null }] } })],
  ['balances.check', (id) => ({ customer_id: 'cus', feature_id: 'f', lock: { lock_id: id, enabled: true } })],
];

describe('IDs a call creates', () => {
  it(`are accepted up to ${ID_MAX_LENGTH} characters and refused beyond`, () => {
    for (const [operation, body] of CREATING) {
      expect(accepts(operation, body('a'.repeat(ID_MAX_LENGTH))), `${operation} at the bound`).toBe(true);
      expect(accepts(operation, body('a'.repeat(ID_MAX_LENGTH + 1))), `${operation} past the bound`).toBe(false);
    }
  });

  it('entities.create refuses exactly the customer IDs customers.get_or_create refuses', () => {
    for (const id of ['cus_1', 'a:b-c', 'has space', 'dot.ted', 'at@sign', '', 'ü']) {
      expect(accepts('entities.create', { customer_id: id, entity_id: 'ent', feature_id: 'seats' }), id).toBe(accepts('customers.get_or_create', { customer_id: id }));
    }
  });
});

describe('numbers the fake computes with', () => {
  const numeric: readonly [OperationName, (n: number) => unknown][] = [
    ['balances.track', (n) => ({ customer_id: 'cus', feature_id: 'f', value: n })],
    ['balances.check', (n) => ({ customer_id: 'cus', feature_id: 'f', required_balance: n })],
    ['balances.finalize', (n) => ({ lock_id: 'l', action: 'confirm', override_value: n })],
    ['billing.attach', (n) => ({ customer_id: 'cus', plan_id: 'p', feature_quantities: [{ feature_id: 'f', quantity: Math.abs(n) }] })],
    ['plans.create', (n) => ({ plan_id: 'p', name: 'P', price: { amount: Math.abs(n), interval: 'month' } })],
    ['plans.create', (n) => ({ plan_id: 'p', name: 'P', items: [{ feature_id: 'f', price: { amount: Math.abs(n), interval: 'month', billing_method: 'usage_based' } }] })],
    ['plans.create', (n) => ({ plan_id: 'p', name: 'P', items: [{ feature_id: 'f', price: { tiers: [{ to: 'inf', amount: n }], interval: 'month', billing_method: 'usage_based' } }] })],
    ['features.create', (n) => ({ feature_id: 'c', name: 'C', type: 'credit_system', credit_schema: [{ metered_feature_id: 'f', credit_cost: Math.abs(n) }] })],
  ];

  it(`are accepted up to ${MAX_AMOUNT} in magnitude and refused beyond, where a sum or product would overflow`, () => {
    for (const [operation, body] of numeric) {
      expect(accepts(operation, body(MAX_AMOUNT)), `${operation} at the bound`).toBe(true);
      for (const huge of [MAX_AMOUNT * 2, 1.7e308, Number.MAX_VALUE]) expect(accepts(operation, body(huge)), `${operation} with ${huge}`).toBe(false);
    }
    for (const [operation, body] of numeric.filter(([name]) => name.startsWith('balances.'))) expect(accepts(operation, body(-1.7e308)), operation).toBe(false);
  });

  it('refuses what JSON reads as Infinity (1e999)', () => {
    expect(accepts('balances.track', JSON.parse('{"customer_id":"c","feature_id":"f","value":1e999}'))).toBe(false);
  });
});
