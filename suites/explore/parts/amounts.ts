/**
 * Amounts, generated along the dimensions the issue lists: small whole numbers, fractions, very
 * large values, and amounts resolved when the command runs against the balance the model holds
 * (exactly what is left, just above it, exactly at the purchase cap). All stay within the bounds
 * of the spec (±2^53 − 1), so they are valid on the strictest implementation.
 */
import fc from 'fast-check';
import type { Balance } from '../../../spec/balances.ts';
import type { z } from 'zod';

export type AmountChoice =
  | { readonly kind: 'default' }
  | { readonly kind: 'value'; readonly value: number }
  | { readonly kind: 'remaining'; readonly delta: number }
  | { readonly kind: 'cap'; readonly delta: number };

/** Whole, fractional and huge amounts (a fraction is kept to what binary floating point holds exactly, or close). */
export const wholeAmount = fc.constantFrom(0, 1, 1, 2, 3, 5, 10);
export const fractionalAmount = fc.constantFrom(0.5, 0.25, 1.5, 2.75, 0.1, 3.3);
export const hugeAmount = fc.constantFrom(1e6, 1e9, 123_456_789_012, 2 ** 40);

export const amountChoice: fc.Arbitrary<AmountChoice> = fc.oneof(
  { arbitrary: fc.constant<AmountChoice>({ kind: 'default' }), weight: 3 },
  { arbitrary: wholeAmount.map((value): AmountChoice => ({ kind: 'value', value })), weight: 6 },
  { arbitrary: fractionalAmount.map((value): AmountChoice => ({ kind: 'value', value })), weight: 3 },
  { arbitrary: hugeAmount.map((value): AmountChoice => ({ kind: 'value', value })), weight: 1 },
  { arbitrary: fc.constantFrom(0, 0.5, 1, -1).map((delta): AmountChoice => ({ kind: 'remaining', delta })), weight: 4 },
  { arbitrary: fc.constantFrom(0, 1).map((delta): AmountChoice => ({ kind: 'cap', delta })), weight: 1 },
);

/** What the subject could still use of a balance beyond `remaining`: the overage room of its usage-priced grants (unbounded: null). */
export function overageRoom(balance: z.output<typeof Balance>): number | null {
  let room = 0;
  for (const entry of balance.breakdown) {
    const price = entry.price;
    if (price?.billing_method !== 'usage_based') continue;
    if (price.max_purchase === null) return null;
    room += Math.max(0, price.max_purchase - Math.max(0, entry.usage - entry.included_grant - entry.prepaid_grant));
  }
  return room;
}

/** The amount a choice comes to against a balance (undefined: leave the field out, its default applies). */
export function resolveAmount(choice: AmountChoice, balance: z.output<typeof Balance> | null | undefined): number | undefined {
  switch (choice.kind) {
    case 'default':
      return undefined;
    case 'value':
      return choice.value;
    case 'remaining':
      return Math.max(0, (balance?.remaining ?? 0) + choice.delta);
    case 'cap': {
      const room = balance ? overageRoom(balance) : 0;
      return Math.max(0, (balance?.remaining ?? 0) + (room ?? 1000) + choice.delta);
    }
  }
}

export function isFractional(value: number | undefined): boolean {
  return value !== undefined && !Number.isInteger(value);
}

export function isHuge(value: number | undefined): boolean {
  return value !== undefined && Math.abs(value) >= 1e6;
}
