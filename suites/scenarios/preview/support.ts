/** Builders and checks that several preview scenario modules share. */
import type { z } from 'zod';
import type { HeaderOverrides } from '../../framework/index.ts';
import { createPlan, type Ops, type T } from '../../support.ts';

export type PreviewBody = z.input<Ops['billing.preview_multi_update']['request']>;

export type PreviewResult = z.output<Ops['billing.preview_multi_update']['response']>;

/** A prorated amount may differ from the exact share by the rounding of one cent. */
export const CENT = 0.01;

export function cancelNow(planIds: readonly string[]): PreviewBody['updates'] {
  return planIds.map((plan_id) => ({ plan_id, cancel_action: 'cancel_immediately' }));
}

/** A preview, by a plain caller or with `headers` (another caller: the published client's User-Agent). */
export async function preview(t: T, body: PreviewBody, rule?: PreviewRule, headers?: HeaderOverrides): Promise<PreviewResult> {
  return t.expectOk(await t.client.call('billing.preview_multi_update', body, headers === undefined ? undefined : { headers }), rule);
}

export type PreviewRule = Parameters<T['check']>[0];

export function monthly(amount: number, extra: NonNullable<Parameters<typeof createPlan>[1]> = {}) {
  return { price: { amount, interval: 'month' as const }, ...extra };
}
