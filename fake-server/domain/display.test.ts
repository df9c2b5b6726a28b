/** Display texts of prices and items, phrased as the reference phrases them (exchanges 010–015). */
import { describe, expect, it } from 'vitest';
import type { Feature } from '../../spec/features.ts';
import type { ItemPrice } from '../../spec/plans.ts';
import { basePriceDisplay, formatMoney, itemDisplay } from './display.ts';

function feature(type: Feature['type'], name = 'Messages', display = { singular: 'message', plural: 'messages' }): Feature {
  return { id: 'messages', name, type, consumable: type === 'metered', archived: false, display, event_names: [] };
}

function usagePrice(extra: Partial<ItemPrice> = {}): ItemPrice {
  return { amount: 0.5, interval: 'month', billing_units: 1, billing_method: 'usage_based', max_purchase: null, ...extra };
}

describe('formatMoney', () => {
  it.each([
    [20, '$20'],
    [0.5, '$0.5'],
    [1234.5, '$1,234.5'],
    [9.999, '$10'],
  ])('%s → %s', (amount, text) => {
    expect(formatMoney(amount)).toBe(text);
  });
});

describe('basePriceDisplay', () => {
  it('[PLAN-SHAPE] names the amount and the interval, as "$20" / "per month" (exchange 014)', () => {
    expect(basePriceDisplay({ amount: 20, interval: 'month' })).toEqual({ primary_text: '$20', secondary_text: 'per month' });
    expect(basePriceDisplay({ amount: 99, interval: 'year' })).toEqual({ primary_text: '$99', secondary_text: 'per year' });
    expect(basePriceDisplay({ amount: 5, interval: 'one_off' })).toEqual({ primary_text: '$5', secondary_text: 'one-off' });
    expect(basePriceDisplay({ amount: 50, interval: 'month', interval_count: 3 }).secondary_text).toBe('per 3 months');
    expect(basePriceDisplay({ amount: 50, interval: 'semi_annual' }).secondary_text).toBe('per half year');
  });
});

describe('itemDisplay', () => {
  it('[PLAN-SHAPE] a boolean item reads as the feature name (exchange 012)', () => {
    expect(itemDisplay(feature('boolean', 'SSO'), { included: 0, unlimited: false, price: null })).toEqual({ primary_text: 'SSO' });
  });

  it('[PLAN-SHAPE] a metered item reads as its included units, singular for one, grouped by thousands (exchanges 010, 014)', () => {
    const messages = feature('metered');
    expect(itemDisplay(messages, { included: 1000, unlimited: false, price: null })).toEqual({ primary_text: '1,000 messages' });
    expect(itemDisplay(messages, { included: 1, unlimited: false, price: null })).toEqual({ primary_text: '1 message' });
    expect(itemDisplay(messages, { included: 0, unlimited: true, price: null })).toEqual({ primary_text: 'Unlimited messages' });
  });

  it('[PLAN-SHAPE] a priced item adds the unit price per billing unit, and the tier range for tiers (exchange 015)', () => {
    const messages = feature('metered');
    expect(itemDisplay(messages, { included: 100, unlimited: false, price: usagePrice() })).toEqual({
      primary_text: '100 messages',
      secondary_text: 'then $0.5 per message',
    });
    expect(itemDisplay(messages, { included: 0, unlimited: false, price: usagePrice({ amount: 2, billing_units: 100 }) }).secondary_text).toBe(
      'then $2 per 100 messages',
    );
    const tiered = usagePrice({ amount: undefined, tiers: [{ to: 1000, amount: 0.5 }, { to: 'inf', amount: 0.2 }] });
    expect(itemDisplay(messages, { included: 100, unlimited: false, price: tiered }).secondary_text).toBe('then $0.5 - $0.2 per message');
  });
});
