/**
 * Display texts of prices and plan items (`display.primary_text` / `secondary_text`), phrased as the
 * reference phrases them: "$20" / "per month", "100 messages", "Unlimited messages", "SSO".
 */
import type { z } from 'zod';
import type { Feature } from '../../spec/features.ts';
import type { BasePriceInput, ItemPrice, PriceTier } from '../../spec/plans.ts';

/** Each recurring interval as a noun, singular and plural ("per month", "per 3 months"). */
const INTERVAL_NOUNS: Readonly<Record<string, readonly [string, string]>> = {
  week: ['week', 'weeks'],
  month: ['month', 'months'],
  quarter: ['quarter', 'quarters'],
  semi_annual: ['half year', 'half years'],
  year: ['year', 'years'],
};

function intervalText(interval: string, count = 1): string {
  const nouns = INTERVAL_NOUNS[interval];
  if (nouns === undefined) return interval === 'one_off' ? 'one-off' : interval;
  return count === 1 ? `per ${nouns[0]}` : `per ${count} ${nouns[1]}`;
}

export function formatMoney(amount: number): string {
  return `$${amount.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;
}

function formatCount(count: number): string {
  return count.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

export function basePriceDisplay(price: z.infer<typeof BasePriceInput>): { primary_text: string; secondary_text: string } {
  return { primary_text: formatMoney(price.amount), secondary_text: intervalText(price.interval, price.interval_count) };
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
