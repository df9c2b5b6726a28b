/** The plans domain without a socket: inputs parsed by the spec's request schemas, handlers called directly. */
import { describe, expect, it } from 'vitest';
import { operations } from '../../spec/operations.ts';
import { createTestFeatures, domainErrorCode as errorCode, tenantPerTest } from './testing.ts';

const NOW = 1_795_328_341_817;
const tenant = tenantPerTest(NOW, createTestFeatures);
const { call } = tenant;

describe('plans.create and plans.get', () => {
  it('[PLAN-CREATE-THEN-GET, VER-PLAN-SLUG-DEFAULT, PLAN-CONFIG-WIRE, PLAN-BILLING-CONTROLS-WIRE, PLAN-METADATA-WIRE, PLAN-PROCESSORS-OMITTED] a minimal plan is stored as version 1, slug v1, active, with empty defaults', () => {
    const created = call('plans.create', { plan_id: 'free', name: 'Free' });
    expect(created).toMatchObject({
      id: 'free',
      name: 'Free',
      description: null,
      group: null,
      version: 1,
      version_slug: 'v1',
      active: true,
      add_on: false,
      auto_enable: false,
      price: null,
      items: [],
      created_at: NOW,
      env: 'sandbox',
      archived: false,
      base_variant_id: null,
      config: { ignore_past_due: false },
      billing_controls: {},
      metadata: {},
    });
    expect(created).not.toHaveProperty('processors');
    expect(created).not.toHaveProperty('free_trial');
    expect(created).not.toHaveProperty('licenses');
    expect(call('plans.get', { plan_id: 'free' })).toEqual(created);
    expect(operations['plans.get'].response.parse(created)).toEqual(created);
  });

  it('[PLAN-DUPLICATE-ID] a second plan with the same id is refused with product_already_exists and the first is kept', () => {
    call('plans.create', { plan_id: 'free', name: 'Free' });
    expect(errorCode(() => call('plans.create', { plan_id: 'free', name: 'Other' }))).toBe('product_already_exists');
    expect(call('plans.get', { plan_id: 'free' }).name).toBe('Free');
  });

  it('[PLAN-PRICE-NULL-FREE] price is null for free and usage-only plans and an object with display texts for a base price', () => {
    expect(call('plans.create', { plan_id: 'free', name: 'Free', items: [{ feature_id: 'messages', included: 10, reset: { interval: 'month' } }] }).price).toBeNull();
    const usageOnly = call('plans.create', {
      plan_id: 'usage',
      name: 'Usage',
      items: [{ feature_id: 'messages', reset: { interval: 'month' }, price: { amount: 0.1, interval: 'month', billing_method: 'usage_based' } }],
    });
    expect(usageOnly.price).toBeNull();
    expect(call('plans.create', { plan_id: 'pro', name: 'Pro', price: { amount: 20, interval: 'month' } }).price).toEqual({
      amount: 20,
      interval: 'month',
      display: { primary_text: '$20', secondary_text: 'per month' },
    });
  });

  it('[PLAN-ITEMS-ROUND-TRIP] items read back in the reference form: booleans include 0 without reset, unlimited resets one_off, price defaults filled in', () => {
    const plan = call('plans.create', {
      plan_id: 'mix',
      name: 'Mix',
      items: [
        { feature_id: 'sso' },
        { feature_id: 'seats', included: 5 },
        { feature_id: 'messages', included: 100, reset: { interval: 'month' }, price: { tiers: [{ to: 1000, amount: 0.5 }, { to: 'inf', amount: 0.2 }], interval: 'month', billing_method: 'usage_based' } },
      ],
    });
    expect(plan.items).toEqual([
      { feature_id: 'sso', included: 0, unlimited: false, reset: null, price: null, display: { primary_text: 'SSO' } },
      { feature_id: 'seats', included: 5, unlimited: false, reset: null, price: null, display: { primary_text: '5 seats' } },
      {
        feature_id: 'messages',
        included: 100,
        unlimited: false,
        reset: { interval: 'month' },
        price: {
          tiers: [{ to: 1000, amount: 0.5 }, { to: 'inf', amount: 0.2 }],
          tier_behavior: 'graduated',
          interval: 'month',
          billing_units: 1,
          billing_method: 'usage_based',
          max_purchase: null,
        },
        display: { primary_text: '100 messages', secondary_text: 'then $0.5 - $0.2 per message' },
      },
    ]);
    const unlimited = call('plans.create', { plan_id: 'unl', name: 'Unlimited', items: [{ feature_id: 'messages', unlimited: true, included: 50 }] });
    expect(unlimited.items[0]).toMatchObject({ included: 0, unlimited: true, reset: { interval: 'one_off' } });
  });

  it('[PLAN-ITEMS-ROUND-TRIP] an item of an unknown feature is refused with feature_not_found and nothing is stored', () => {
    expect(errorCode(() => call('plans.create', { plan_id: 'bad', name: 'Bad', items: [{ feature_id: 'nope' }] }))).toBe('feature_not_found');
    expect(errorCode(() => call('plans.get', { plan_id: 'bad' }))).toBe('product_not_found');
  });

  it('[PLAN-CURRENCIES-ROUND-TRIP] additional currencies are kept on the base price, the item price and each tier', () => {
    const eur = [{ currency: 'eur', amount: 18 }];
    const plan = call('plans.create', {
      plan_id: 'multi',
      name: 'Multi',
      price: { amount: 20, interval: 'month', additional_currencies: eur },
      items: [
        {
          feature_id: 'messages',
          reset: { interval: 'month' },
          price: { tiers: [{ to: 10, amount: 1, additional_currencies: [{ currency: 'eur', amount: 0.9 }] }, { to: 'inf', amount: 0.5, additional_currencies: [{ currency: 'eur', amount: 0.45 }] }], interval: 'month', billing_method: 'usage_based' },
        },
        { feature_id: 'seats', price: { amount: 3, interval: 'month', billing_method: 'prepaid', additional_currencies: [{ currency: 'eur', amount: 2.7 }] } },
      ],
    });
    expect(plan.price?.additional_currencies).toEqual(eur);
    expect(plan.items[0]!.price?.tiers?.map((tier) => tier.additional_currencies)).toEqual([[{ currency: 'eur', amount: 0.9 }], [{ currency: 'eur', amount: 0.45 }]]);
    expect(plan.items[1]!.price?.additional_currencies).toEqual([{ currency: 'eur', amount: 2.7 }]);
  });

  it('[PLAN-FREE-TRIAL-ROUND-TRIP, PLAN-FREE-TRIAL-WIRE] a free trial reads back with its defaults and on_end null; a one-off plan cannot have one', () => {
    const plan = call('plans.create', { plan_id: 'trial', name: 'Trial', price: { amount: 10, interval: 'month' }, free_trial: { duration_length: 14, duration_type: 'day', card_required: false } });
    expect(plan.free_trial).toEqual({ duration_length: 14, duration_type: 'day', card_required: false, on_end: null });
    const defaults = call('plans.create', { plan_id: 'trial2', name: 'Trial 2', price: { amount: 10, interval: 'month' }, free_trial: { duration_length: 1 } });
    expect(defaults.free_trial).toEqual({ duration_length: 1, duration_type: 'month', card_required: true, on_end: null });
    expect(errorCode(() => call('plans.create', { plan_id: 'once', name: 'Once', price: { amount: 10, interval: 'one_off' }, free_trial: { duration_length: 7, duration_type: 'day' } }))).toBe(
      'invalid_request',
    );
  });

  it('[PLAN-CONFIG-ROUND-TRIP, PLAN-BILLING-CONTROLS-WIRE, PLAN-METADATA-WIRE] config, billing controls and metadata are kept as sent', () => {
    const plan = call('plans.create', {
      plan_id: 'flags',
      name: 'Flags',
      config: { ignore_past_due: true },
      billing_controls: { overage_allowed: [{ feature_id: 'messages', enabled: true }] },
      metadata: { tier: 'gold', nested: { n: 1 } },
    });
    expect(plan).toMatchObject({
      config: { ignore_past_due: true },
      billing_controls: { overage_allowed: [{ feature_id: 'messages', enabled: true }] },
      metadata: { tier: 'gold', nested: { n: 1 } },
    });
  });

  it('[PLAN-LICENSES-WIRE] license links carry the license plan version, included (default 0) and prepaid_only (default true)', () => {
    call('plans.create', { plan_id: 'seat', name: 'Seat', items: [{ feature_id: 'sso' }] });
    call('plans.create', { plan_id: 'seat2', name: 'Seat 2' });
    const parent = call('plans.create', { plan_id: 'team', name: 'Team', licenses: [{ license_plan_id: 'seat', included: 3 }, { license_plan_id: 'seat2' }] });
    expect(parent.licenses).toEqual([
      { license_plan_id: 'seat', version: 1, included: 3, prepaid_only: true },
      { license_plan_id: 'seat2', version: 1, included: 0, prepaid_only: true },
    ]);
  });

  it('[PLAN-LICENSES-WIRE] a self link, a duplicate link, an archived or unknown license plan are refused', () => {
    call('plans.create', { plan_id: 'seat', name: 'Seat' });
    expect(errorCode(() => call('plans.create', { plan_id: 'team', name: 'Team', licenses: [{ license_plan_id: 'team' }] }))).toBe('invalid_request');
    call('plans.create', { plan_id: 'team', name: 'Team' });
    expect(errorCode(() => call('plans.update', { plan_id: 'team', licenses: [{ license_plan_id: 'seat' }, { license_plan_id: 'seat' }] }))).toBe('invalid_request');
    expect(errorCode(() => call('plans.update', { plan_id: 'team', licenses: [{ license_plan_id: 'ghost' }] }))).toBe('product_not_found');
    call('plans.update', { plan_id: 'seat', archived: true });
    expect(errorCode(() => call('plans.update', { plan_id: 'team', licenses: [{ license_plan_id: 'seat' }] }))).toBe('invalid_request');
  });

  it('[PLAN-AUTO-ENABLE] an auto-enable plan must be free (a default trial excepted) and alone in its group among main plans', () => {
    expect(errorCode(() => call('plans.create', { plan_id: 'paid', name: 'Paid', auto_enable: true, price: { amount: 5, interval: 'month' } }))).toBe('invalid_request');
    call('plans.create', { plan_id: 'trial', name: 'Trial', group: 'a', auto_enable: true, price: { amount: 5, interval: 'month' }, free_trial: { duration_length: 7, duration_type: 'day', card_required: false } });
    expect(errorCode(() => call('plans.create', { plan_id: 'free', name: 'Free', group: 'a', auto_enable: true }))).toBe('invalid_request');
    call('plans.create', { plan_id: 'free_b', name: 'Free B', group: 'b', auto_enable: true });
    call('plans.create', { plan_id: 'addon_a', name: 'Add-on A', group: 'a', add_on: true, auto_enable: true });
  });

  it('[ERR-PLAN-NOT-FOUND] an unknown plan or an unknown version of a known plan is product_not_found', () => {
    call('plans.create', { plan_id: 'free', name: 'Free' });
    expect(errorCode(() => call('plans.get', { plan_id: 'ghost' }))).toBe('product_not_found');
    expect(errorCode(() => call('plans.get', { plan_id: 'free', version: 7 }))).toBe('product_not_found');
    expect(errorCode(() => call('plans.update', { plan_id: 'ghost', name: 'Ghost' }))).toBe('product_not_found');
  });
});

describe('plans.update and versions', () => {
  const messages = (included: number) => [{ feature_id: 'messages', included, reset: { interval: 'month' as const } }];

  it('[VER-PLAN-VERSION-INCREASES, VER-PLAN-SLUG-DEFAULT, VER-PLAN-ONE-ACTIVE, PLAN-GET-VERSION, PLAN-GET-DEFAULT-ACTIVE, PLAN-UPDATE-NEW-VERSION] a configuration change makes version n+1, the only active one', () => {
    const v1 = structuredClone(call('plans.create', { plan_id: 'free', name: 'Free', items: messages(100) }));
    tenant.ctx.clock.set({ now: NOW + 1000 });
    const v2 = call('plans.update', { plan_id: 'free', items: messages(200) });
    expect(v2).toMatchObject({ version: 2, version_slug: 'v2', active: true, created_at: NOW + 1000 });
    expect(v2.items[0]!.included).toBe(200);
    expect(call('plans.get', { plan_id: 'free' })).toEqual(v2);
    expect(call('plans.get', { plan_id: 'free', version: 1 })).toEqual({ ...v1, active: false });
    const v3 = call('plans.update', { plan_id: 'free', price: { amount: 5, interval: 'month' } });
    expect(v3).toMatchObject({ version: 3, version_slug: 'v3', active: true });
    const actives = [1, 2, 3].map((version) => call('plans.get', { plan_id: 'free', version }).active);
    expect(actives).toEqual([false, false, true]);
  });

  it('[VER-PLAN-VERSION-INCREASES] a change of name or flags alone, or the same configuration again, stays in place', () => {
    call('plans.create', { plan_id: 'free', name: 'Free', items: messages(100) });
    const renamed = call('plans.update', { plan_id: 'free', name: 'Starter', description: 'For a start', group: 'g', items: messages(100) });
    expect(renamed).toMatchObject({ version: 1, name: 'Starter', description: 'For a start', group: 'g', active: true });
    expect(call('plans.list', { all_versions: true }).list).toHaveLength(1);
  });

  it('[PLAN-METADATA-SHARED] metadata and archiving apply to every version', () => {
    call('plans.create', { plan_id: 'free', name: 'Free', items: messages(100), metadata: { a: 1 } });
    call('plans.update', { plan_id: 'free', items: messages(200) });
    call('plans.update', { plan_id: 'free', metadata: { b: 2 } });
    expect(call('plans.get', { plan_id: 'free', version: 1 }).metadata).toEqual({ b: 2 });
    expect(call('plans.get', { plan_id: 'free', version: 2 }).metadata).toEqual({ b: 2 });
    call('plans.update', { plan_id: 'free', archived: true });
    expect([1, 2].map((version) => call('plans.get', { plan_id: 'free', version }).archived)).toEqual([true, true]);
  });

  it('[PLAN-LICENSE-LINKS-REPLACE] the license links sent replace the existing set; an empty set removes them', () => {
    for (const id of ['l1', 'l2', 'l3']) call('plans.create', { plan_id: id, name: id });
    call('plans.create', { plan_id: 'team', name: 'Team', licenses: [{ license_plan_id: 'l1', included: 2 }, { license_plan_id: 'l2', included: 1 }] });
    const replaced = call('plans.update', { plan_id: 'team', licenses: [{ license_plan_id: 'l2', included: 5 }, { license_plan_id: 'l3', included: 1 }] });
    expect(replaced.licenses?.map(({ license_plan_id, included }) => ({ license_plan_id, included }))).toEqual([
      { license_plan_id: 'l2', included: 5 },
      { license_plan_id: 'l3', included: 1 },
    ]);
    expect(call('plans.update', { plan_id: 'team', licenses: [] })).not.toHaveProperty('licenses');
  });

  it('[PLAN-FREE-TRIAL-ROUND-TRIP] free_trial null removes the trial in a new version', () => {
    call('plans.create', { plan_id: 'trial', name: 'Trial', price: { amount: 10, interval: 'month' }, free_trial: { duration_length: 14, duration_type: 'day' } });
    const without = call('plans.update', { plan_id: 'trial', free_trial: null });
    expect(without).not.toHaveProperty('free_trial');
    expect(without.version).toBe(2);
    expect(call('plans.get', { plan_id: 'trial', version: 1 }).free_trial?.duration_length).toBe(14);
  });

  it('[PLAN-CONFIG-ROUND-TRIP] a config patch changes the flag in place; omitting config keeps it', () => {
    call('plans.create', { plan_id: 'p', name: 'P', config: { ignore_past_due: true } });
    expect(call('plans.update', { plan_id: 'p', name: 'Q' }).config).toEqual({ ignore_past_due: true });
    expect(call('plans.update', { plan_id: 'p', config: { ignore_past_due: false } })).toMatchObject({ version: 1, config: { ignore_past_due: false } });
  });
});

describe('plans.list', () => {
  it('[PLAN-LIST, VER-PLAN-ONE-ACTIVE] lists the active version of each plan; all_versions lists every version; archived plans only when asked', () => {
    call('plans.create', { plan_id: 'a', name: 'A', items: [{ feature_id: 'sso' }] });
    call('plans.create', { plan_id: 'b', name: 'B' });
    call('plans.update', { plan_id: 'a', items: [] });
    call('plans.create', { plan_id: 'c', name: 'C' });
    call('plans.update', { plan_id: 'c', archived: true });
    expect(call('plans.list', {}).list.map((plan) => [plan.id, plan.version])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
    expect(call('plans.list', { all_versions: true }).list.map((plan) => [plan.id, plan.version, plan.active])).toEqual([
      ['a', 1, false],
      ['a', 2, true],
      ['b', 1, true],
    ]);
    expect(call('plans.list', { include_archived: true }).list.map((plan) => plan.id)).toEqual(['a', 'b', 'c']);
  });
});
