/** The license domain without a socket: inputs parsed by the spec's request schemas, handlers called directly. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { type OperationName, operations } from '../../spec/operations.ts';
import type { DomainContext, OutputOf } from './context.ts';
import { forceState } from './lifecycle.ts';
import { callHandler, domainErrorCode as errorCode, testContext } from './testing.ts';

const NOW = 1_795_328_341_817;
let ctx: DomainContext;

function call<N extends OperationName>(name: N, body: z.input<(typeof operations)[N]['request']>): OutputOf<N> {
  return callHandler(ctx, name, body);
}

type Item = { entity_id: string; name: string; feature_id?: string };

/** A new entity's item (it carries the feature to create it with). */
function fresh(entityId: string): Item {
  return { entity_id: entityId, name: `Member ${entityId}`, feature_id: 'seats' };
}

/** An existing entity's item. */
function known(entityId: string): Item {
  return { entity_id: entityId, name: `Member ${entityId}` };
}

function attach(entities: Item[], customerId = 'cus_team', planId = 'seat') {
  return call('licenses.attach', { customer_id: customerId, plan_id: planId, entities });
}

function release(entityIds: string[], customerId = 'cus_team', licensePlanId = 'seat') {
  return call('licenses.release', { customer_id: customerId, license_plan_id: licensePlanId, entity_ids: entityIds });
}

function pools(customerId = 'cus_team') {
  return call('licenses.list', { customer_id: customerId }).list;
}

function seatPool(customerId = 'cus_team') {
  const found = pools(customerId).find((pool) => pool.license_plan_id === 'seat');
  if (found === undefined) throw new Error(`${customerId} has no seat pool`);
  return found;
}

function assigned(customerId = 'cus_team'): string[] {
  return call('licenses.list_assignments', { customer_id: customerId })
    .list.map((assignment) => assignment.entity_id)
    .sort();
}

/** Records of the seat plan the entity holds, live ones only. */
function seatRecords(entityId: string) {
  return ctx.store.recordsOf(ctx.store.entities.get(entityId)!.customerId).filter((r) => r.entityId === entityId && r.planId === 'seat' && r.status !== 'expired');
}

function customerWith(customerId: string, planId: string, extra: Partial<z.input<(typeof operations)['billing.attach']['request']>> = {}) {
  call('customers.get_or_create', { customer_id: customerId });
  call('billing.attach', { customer_id: customerId, plan_id: planId, ...extra });
}

beforeEach(() => {
  ctx = testContext(NOW);
  call('features.create', { feature_id: 'seats', name: 'Seats', type: 'metered', consumable: false, display: { singular: 'seat', plural: 'seats' } });
  call('features.create', { feature_id: 'messages', name: 'Messages', type: 'metered', consumable: true, display: { singular: 'message', plural: 'messages' } });
  call('features.create', { feature_id: 'sso', name: 'SSO', type: 'boolean' });
  call('plans.create', { plan_id: 'seat', name: 'Seat', items: [{ feature_id: 'sso' }, { feature_id: 'messages', included: 10, reset: { interval: 'month' } }] });
  call('plans.create', {
    plan_id: 'team',
    name: 'Team',
    group: 'main',
    items: [{ feature_id: 'seats', included: 5 }],
    licenses: [{ license_plan_id: 'seat', included: 3 }],
  });
  customerWith('cus_team', 'team');
});

describe('licenses.list', () => {
  it('[LIC-LIST-SHAPE, LIC-POOL-GRANTED, LIC-POOL-USAGE, LIC-POOL-REMAINING, LIC-POOL-PAID-QUANTITY] a pool shows its seats: granted = included + paid, remaining = granted − usage', () => {
    const listed = call('licenses.list', { customer_id: 'cus_team' });
    expect(operations['licenses.list'].response.safeParse(listed).success).toBe(true);
    expect(listed.list).toEqual([
      { license_plan_id: 'seat', parent_plan_id: 'team', license_plan_name: 'Seat', granted: 3, usage: 0, remaining: 3, paid_quantity: 0 },
    ]);
    customerWith('cus_paid', 'team', { license_quantities: [{ license_plan_id: 'seat', quantity: 7 }] });
    attach([fresh('p1'), fresh('p2')], 'cus_paid');
    expect(seatPool('cus_paid')).toMatchObject({ granted: 7, paid_quantity: 4, usage: 2, remaining: 5 });
  });

  it('[LIC-LIST-CUSTOMER-POOLS, LIC-LIST-ORDER] lists only the live customer-level pools of the customer, by parent plan then license plan', () => {
    call('plans.create', { plan_id: 'badge', name: 'Badge' });
    call('plans.create', { plan_id: 'addon_pack', name: 'Pack', add_on: true, licenses: [{ license_plan_id: 'badge', included: 1 }] });
    call('plans.create', { plan_id: 'team_plus', name: 'Team plus', group: 'main', licenses: [{ license_plan_id: 'badge', included: 2 }, { license_plan_id: 'seat', included: 4 }] });
    call('billing.attach', { customer_id: 'cus_team', plan_id: 'addon_pack' });
    expect(pools().map((pool) => [pool.parent_plan_id, pool.license_plan_id])).toEqual([
      ['addon_pack', 'badge'],
      ['team', 'seat'],
    ]);
    // team_plus replaces team (same group): team's pool goes with it.
    call('billing.attach', { customer_id: 'cus_team', plan_id: 'team_plus' });
    expect(pools().map((pool) => [pool.parent_plan_id, pool.license_plan_id, pool.granted])).toEqual([
      ['addon_pack', 'badge', 1],
      ['team_plus', 'badge', 2],
      ['team_plus', 'seat', 4],
    ]);
    call('customers.get_or_create', { customer_id: 'cus_other' });
    expect(pools('cus_other')).toEqual([]);
    // A parent plan held by an entity offers no customer pool.
    call('entities.create', { customer_id: 'cus_other', entity_id: 'ent_other', feature_id: 'seats' });
    call('billing.attach', { customer_id: 'cus_other', entity_id: 'ent_other', plan_id: 'team' });
    expect(pools('cus_other')).toEqual([]);
  });

  it('[LIC-LIST-CUSTOMER-POOLS] a pool exists only with seats, and a past-due parent still offers it', () => {
    call('plans.create', { plan_id: 'empty', name: 'Empty', add_on: true, licenses: [{ license_plan_id: 'seat', included: 0 }] });
    customerWith('cus_empty', 'empty');
    expect(pools('cus_empty')).toEqual([]);
    const parent = ctx.store.recordsOf('cus_team').find((record) => record.planId === 'team')!;
    forceState(ctx, parent.id, 'past_due');
    expect(pools()).toHaveLength(1);
  });

  it('[LIC-LIST-ENTITY-SAME-POOLS] with an entity_id the customer pools come back unchanged; an unknown entity is entity_not_found', () => {
    attach([fresh('m1')]);
    call('entities.create', { customer_id: 'cus_team', entity_id: 'outsider', feature_id: 'seats' });
    const all = pools();
    expect(call('licenses.list', { customer_id: 'cus_team', entity_id: 'm1' }).list).toEqual(all);
    expect(call('licenses.list', { customer_id: 'cus_team', entity_id: 'outsider' }).list).toEqual(all);
    expect(errorCode(() => call('licenses.list', { customer_id: 'cus_team', entity_id: 'nope' }))).toBe('entity_not_found');
    expect(errorCode(() => call('licenses.list', { customer_id: 'nobody' }))).toBe('customer_not_found');
  });
});

describe('licenses.attach', () => {
  it('[LIC-ATTACH-BATCH, LIC-ATTACH-CREATES-ENTITY, LIC-ATTACH-SHAPE] assigns every entity of a batch, creating the unknown ones under the customer', () => {
    call('entities.create', { customer_id: 'cus_team', entity_id: 'm1', feature_id: 'seats', name: 'One' });
    const seatsBefore = call('customers.get', { customer_id: 'cus_team' }).balances['seats'];
    expect(attach([known('m1'), fresh('m2')])).toEqual({ success: true });
    expect(seatPool()).toMatchObject({ usage: 2, remaining: 1 });
    expect(call('entities.get', { customer_id: 'cus_team', entity_id: 'm2' })).toMatchObject({ name: 'Member m2', customer_id: 'cus_team', feature_id: 'seats' });
    // As in the reference, an entity created by licenses.attach does not allocate its feature on the customer.
    expect(call('customers.get', { customer_id: 'cus_team' }).balances['seats']).toEqual(seatsBefore);
    const seat = call('entities.get', { customer_id: 'cus_team', entity_id: 'm2' });
    expect(seat.subscriptions.map((s) => s.plan_id)).toEqual(['seat', 'team']);
    expect(seat.flags['sso']).toMatchObject({ plan_id: 'seat' });
  });

  it('[LIC-ATTACH-SKIP-ASSIGNED, LIC-ATTACH-MIXED-BATCH, LIC-ATTACH-ALL-ASSIGNED-OK, STATE-SKIP-NO-EXTRA-LICENSE] an assigned entity is skipped without another seat or record', () => {
    attach([fresh('m1'), fresh('m2')]);
    expect(attach([known('m1'), fresh('m3')])).toEqual({ success: true });
    expect(seatPool()).toMatchObject({ usage: 3, remaining: 0 });
    expect(attach([known('m1'), known('m2'), known('m3')])).toEqual({ success: true });
    expect(seatPool()).toMatchObject({ usage: 3, remaining: 0 });
    expect(assigned()).toEqual(['m1', 'm2', 'm3']);
    for (const id of ['m1', 'm2', 'm3']) expect(seatRecords(id)).toHaveLength(1);
  });

  it('[LIC-ATTACH-DUPLICATE-IDS, ERR-DUPLICATE-ENTITY-CODE] refuses an entity twice in a batch, assigned or not, before anything is written', () => {
    attach([fresh('m1')]);
    expect(errorCode(() => attach([fresh('x'), fresh('x')]))).toBe('invalid_request');
    expect(errorCode(() => attach([known('m1'), known('m1')]))).toBe('invalid_request');
    expect(ctx.store.entities.has('x')).toBe(false);
    expect(seatPool()).toMatchObject({ usage: 1 });
  });

  it('[LIC-ATTACH-CAPACITY, LIC-ATTACH-ALL-OR-NOTHING, ERR-CAPACITY-CODE] refuses a batch with more new entities than seats left, assigning and creating nothing', () => {
    call('entities.create', { customer_id: 'cus_team', entity_id: 'existing', feature_id: 'seats' });
    attach([fresh('m1'), fresh('m2')]);
    expect(errorCode(() => attach([known('existing'), fresh('m3')]))).toBe('invalid_request');
    expect(errorCode(() => attach([known('m1'), fresh('m3'), fresh('m4')]))).toBe('invalid_request');
    expect(ctx.store.entities.has('m3')).toBe(false);
    expect(seatPool()).toMatchObject({ usage: 2, remaining: 1 });
    expect(assigned()).toEqual(['m1', 'm2']);
    expect(attach([known('existing')])).toEqual({ success: true });
    expect(errorCode(() => attach([fresh('m3')]))).toBe('invalid_request');
  });

  it('[LIC-ATTACH-UNKNOWN-ENTITY-NEEDS-FEATURE] refuses an unknown entity without feature_id, before the capacity check', () => {
    expect(errorCode(() => attach([fresh('m1'), known('ghost')]))).toBe('invalid_request');
    expect(ctx.store.entities.has('m1')).toBe(false);
    attach([fresh('a'), fresh('b'), fresh('c')]);
    expect(() => attach([known('ghost')])).toThrow('does not exist');
  });

  it('refuses what it cannot assign: no pool, two pools, an archived license plan, an entity of another customer, a bad feature', () => {
    call('customers.get_or_create', { customer_id: 'cus_bare' });
    expect(errorCode(() => attach([fresh('m1')], 'cus_bare'))).toBe('invalid_request');
    expect(errorCode(() => attach([fresh('m1')], 'nobody'))).toBe('customer_not_found');
    expect(errorCode(() => attach([fresh('m1')], 'cus_team', 'team'))).toBe('invalid_request');

    call('entities.create', { customer_id: 'cus_bare', entity_id: 'theirs', feature_id: 'seats' });
    expect(errorCode(() => attach([known('theirs')]))).toBe('entity_not_found');
    expect(errorCode(() => attach([{ entity_id: 'm1', name: 'M', feature_id: 'messages' }]))).toBe('invalid_request');
    expect(errorCode(() => attach([{ entity_id: 'm1', name: 'M', feature_id: 'nope' }]))).toBe('feature_not_found');
    expect(seatPool()).toMatchObject({ usage: 0 });

    call('plans.create', { plan_id: 'also_seat', name: 'Also', add_on: true, licenses: [{ license_plan_id: 'seat', included: 1 }] });
    call('billing.attach', { customer_id: 'cus_team', plan_id: 'also_seat' });
    expect(() => attach([fresh('m1')])).toThrow('Multiple plans offer license seat.');

    call('plans.update', { plan_id: 'seat', archived: true });
    customerWith('cus_late', 'team');
    expect(() => attach([fresh('m2')], 'cus_late')).toThrow('archived');
    expect(ctx.store.entities.has('m1') || ctx.store.entities.has('m2')).toBe(false);
  });
});

describe('licenses.release', () => {
  it('[LIC-RELEASE-FREES-SEAT, LIC-RELEASE-SHAPE, STATE-LICENSE-ATTACH-RELEASE] frees the seat and ends the license of the entity, which stays and can take a seat again', () => {
    attach([fresh('m1'), fresh('m2')]);
    expect(release(['m1'])).toEqual({ success: true });
    expect(seatPool()).toMatchObject({ usage: 1, remaining: 2 });
    expect(seatRecords('m1')).toEqual([]);
    expect(call('entities.get', { customer_id: 'cus_team', entity_id: 'm1' }).flags).toEqual({});
    expect(assigned()).toEqual(['m2']);
    attach([known('m1')]);
    expect(seatPool()).toMatchObject({ usage: 2, remaining: 1 });
    expect(seatRecords('m1')).toHaveLength(1);
  });

  it('[LIC-RELEASE-UNASSIGNED, LIC-RELEASE-DUPLICATE-IDS] refuses an entity without the license, or twice in one release, and releases nothing', () => {
    attach([fresh('m1'), fresh('m2')]);
    call('entities.create', { customer_id: 'cus_team', entity_id: 'never', feature_id: 'seats' });
    expect(errorCode(() => release(['m1', 'never']))).toBe('invalid_request');
    expect(errorCode(() => release(['m1', 'm1']))).toBe('invalid_request');
    expect(errorCode(() => release(['m1', 'ghost']))).toBe('entity_not_found');
    expect(assigned()).toEqual(['m1', 'm2']);
    release(['m1']);
    expect(errorCode(() => release(['m1']))).toBe('invalid_request');
    expect(seatPool()).toMatchObject({ usage: 1 });
  });

  it('[LIC-RELEASE-FREES-SEAT] deleting an entity, or ending the parent plan, frees or revokes its seats', () => {
    attach([fresh('m1'), fresh('m2')]);
    call('entities.delete', { customer_id: 'cus_team', entity_id: 'm1' });
    expect(seatPool()).toMatchObject({ usage: 1, remaining: 2 });
    call('plans.create', { plan_id: 'solo', name: 'Solo', group: 'main' });
    call('billing.attach', { customer_id: 'cus_team', plan_id: 'solo' });
    expect(pools()).toEqual([]);
    expect(assigned()).toEqual([]);
    expect(seatRecords('m2')).toEqual([]);
  });
});

describe('licenses.list_assignments', () => {
  it('[LIC-ASSIGNMENTS-LIST, LIC-ASSIGNMENTS-SHAPE] lists active assignments newest first, filtered by entity or plan; active: false lists the released ones', () => {
    attach([fresh('m1')]);
    ctx.clock.advance(1_000);
    attach([fresh('m2')]);
    release(['m1']);
    const active = call('licenses.list_assignments', { customer_id: 'cus_team' });
    expect(operations['licenses.list_assignments'].response.safeParse(active).success).toBe(true);
    expect(active.list).toEqual([{ id: expect.any(String), entity_id: 'm2', license_plan_id: 'seat', started_at: NOW + 1_000, ended_at: null }]);
    attach([known('m1')]);
    expect(call('licenses.list_assignments', { customer_id: 'cus_team' }).list.map((a) => a.entity_id)).toEqual(['m1', 'm2']);
    expect(call('licenses.list_assignments', { customer_id: 'cus_team', entity_id: 'm2' }).list.map((a) => a.entity_id)).toEqual(['m2']);
    expect(call('licenses.list_assignments', { customer_id: 'cus_team', plan_id: 'other' }).list).toEqual([]);
    expect(call('licenses.list_assignments', { customer_id: 'cus_team', active: false }).list).toEqual([
      { id: expect.any(String), entity_id: 'm1', license_plan_id: 'seat', started_at: NOW, ended_at: NOW + 1_000 },
    ]);
  });
});
