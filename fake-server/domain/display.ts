/**
 * Display texts of prices and plan items (`display.primary_text` / `secondary_text`), phrased as the
 * reference phrases them: "$20" / "per month", "100 messages", "Unlimited messages", "SSO".
 */
import type { z } from 'zod';
import type { Feature } from '../../spec/features.ts';
import type { BasePriceInput, ItemPrice, PriceTier } from '../../spec/plans.ts';

const INTERVAL_WORDS: Readonly<Record<string, string>> = {
  one_off: 'one-off',
  week: 'per week',
  month: 'per month',
  quarter: 'per quarter',
  semi_annual: 'per half year',
  year: 'per year',
};

export function formatMoney(amount: number): string {
  return `$${amount.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;
}

function formatCount(count: number): string {
  return count.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

export function basePriceDisplay(price: z.infer<typeof BasePriceInput>): { primary_text: string; secondary_text: string } {
  return { primary_text: formatMoney(price.amount), secondary_text: INTERVAL_WORDS[price.interval] ?? price.interval };
}

function unitPrice(price: ItemPrice): string {
  if (price.amount !== undefined) return formatMoney(price.amount);
  const tiers = (price.tiers ?? []) as z.infer<typeof PriceTier>[];
  return `${formatMoney(tiers[0]?.amount ?? 0)} - ${formatMoney(tiers.at(-1)?.amount ?? 0)}`;
}

export function itemDisplay(
  feature: Feature,
  item: { included: number; unlimited: boolean; price: ItemPrice | null },
): { primary_text: string; secondary_text?: string } {
  if (feature.type === 'boolean') return { primary_text: feature.name };
  const units = (count: number) => (count === 1 ? feature.display.singular : feature.display.plural);
  const primary = item.unlimited ? `Unlimited ${feature.display.plural}` : `${formatCount(item.included)} ${units(item.included)}`;
  if (item.price === null) return { primary_text: primary };
  const per = item.price.billing_units === 1 ? feature.display.singular : `${formatCount(item.price.billing_units)} ${feature.display.plural}`;
  return { primary_text: primary, secondary_text: `then ${unitPrice(item.price)} per ${per}` };
}
