/**
 * Scenarios past 100 rows: in a pool past 100 seats, what a target looks up of "already assigned" (on
 * attach and on release) and what it lists of the assignments; for a customer past 100 pools, what
 * licenses.list lists and which pool licenses.attach finds. Each must reach past a first page of 100
 * rows, whichever way the target reads them.
 */
import { expect } from 'vitest';
import { inBatches } from '../../framework/index.ts';
import { attach, createCustomer, createFeature, createLicensePool, createPlan, type LicenseSetup, requireLicenseLinks, scenario, SETUP_WIDTH, type T } from '../../support.ts';
import { type AttachItem, attachLicenses, expectPool, holders, releaseLicenses, sorted } from './support.ts';

/** Seats of the pool, and entities assigned in the first batch: well past 100, with room left for a batch that a lookup stopping at 100 would assign twice. */
const SEATS = 220;
const ASSIGNED = 150;
/** How many entities are taken from each end of the assigned set. */
const AT_EACH_END = 20;
const NEW_IN_MIXED_BATCH = 10;
/** Entities of the batches refused part-way: the cause lies past the 100th. */
const BIG_BATCH = 130;
/** License plans one parent plan offers, each with a seat: past a first page of 100 pools. */
const POOLS = 105;

/**
 * `count` new entities for licenses.attach, their IDs ascending in the order they are listed (one
 * prefix, fixed-width digits, so every collation orders them alike): the assigned set's first and
 * last are then its oldest and newest, and its lowest and highest IDs too.
 */
function seatsInOrder(t: T, setup: LicenseSetup, count: number): AttachItem[] {
  const base = t.ns.id('seat');
  return Array.from({ length: count }, (_, n) => {
    const entityId = `${base}_${String(n).padStart(3, '0')}`;
    t.ledger.record({ kind: 'entity', id: entityId, customer_id: setup.customerId });
    return { entity_id: entityId, name: `Seat ${entityId}`, feature_id: setup.seatFeature.id };
  });
}

/** The item without feature_id: how the reference's own calls name an entity that already exists. */
function withoutFeature(item: AttachItem): AttachItem {
  return { entity_id: item.entity_id, name: item.name };
}

export const past100Scenarios = [
  scenario(
    {
      id: 'licenses.batch-refusals-past-100',
      title: `batches of ${BIG_BATCH}: one naming an entity twice, at its first and last place, is refused; one asking more seats than the pool has is refused and assigns and creates nothing; a release naming an entity twice far apart releases nothing; each beside the nearest batch that is taken`,
      rules: ['LIC-ATTACH-DUPLICATE-IDS', 'LIC-ATTACH-CAPACITY', 'LIC-ATTACH-ALL-OR-NOTHING', 'LIC-RELEASE-DUPLICATE-IDS', 'LIC-ATTACH-BATCH', 'LIC-RELEASE-FREES-SEAT', 'LIC-POOL-USAGE', 'LIC-POOL-REMAINING'],
    },
    async (t) => {
      // A pool short of the batch by a few seats: the refusal for capacity comes only past the 100th new entity.
      const setup = await createLicensePool(t, BIG_BATCH - 5);
      const batch = seatsInOrder(t, setup, BIG_BATCH);
      const twice = [...batch.slice(0, BIG_BATCH - 6), batch[0]!];
      t.expectError(await attachLicenses(t, setup, twice), { status: [400, 499], rule: 'LIC-ATTACH-DUPLICATE-IDS' });
      await expectPool(t, setup, 'LIC-ATTACH-DUPLICATE-IDS', { usage: 0, remaining: BIG_BATCH - 5 }, 'a batch refused for naming an entity twice takes no seat');

      t.expectError(await attachLicenses(t, setup, batch), { status: [400, 499], rule: 'LIC-ATTACH-CAPACITY' });
      await expectPool(t, setup, 'LIC-ATTACH-ALL-OR-NOTHING', { usage: 0, remaining: BIG_BATCH - 5 }, `a batch of ${BIG_BATCH} new entities for ${BIG_BATCH - 5} seats assigns none`);
      const created = t.setup(await t.client.call('entities.list', { customer_id: setup.customerId, limit: 200 }));
      t.check('LIC-ATTACH-ALL-OR-NOTHING', () => expect(created.list.map((entity) => entity.id).filter((id) => batch.some((item) => item.entity_id === id)), 'and creates none of its new entities').toEqual([]));

      // The nearest batches that are taken: the first without its repeat, and as many as the pool has seats.
      const taken = batch.slice(0, BIG_BATCH - 5);
      t.expectOk(await attachLicenses(t, setup, taken), 'LIC-ATTACH-BATCH');
      await expectPool(t, setup, 'LIC-ATTACH-BATCH', { usage: BIG_BATCH - 5, remaining: 0 }, `a batch of ${BIG_BATCH - 5} new entities fills the pool`);

      const ids = taken.map((item) => item.entity_id);
      t.expectError(await releaseLicenses(t, setup, [...ids.slice(0, 120), ids[0]!]), { status: [400, 499], rule: 'LIC-RELEASE-DUPLICATE-IDS' });
      await expectPool(t, setup, 'LIC-RELEASE-DUPLICATE-IDS', { usage: BIG_BATCH - 5, remaining: 0 }, 'a release naming an entity twice, at its first and 121st place, releases nothing');
      t.expectOk(await releaseLicenses(t, setup, ids.slice(0, 120)), 'LIC-RELEASE-FREES-SEAT');
      await expectPool(t, setup, 'LIC-RELEASE-FREES-SEAT', { usage: BIG_BATCH - 125, remaining: 120 }, 'the same release without the repeat frees 120 seats');
    },
  ),
  scenario(
    {
      id: 'licenses.past-100-assigned',
      title: `a pool of ${SEATS} seats with ${ASSIGNED} entities assigned by one batch: entities from both ends of the assigned set (past the first 100, whichever way a target reads its rows) are skipped by a re-attach, alone and mixed with new ones, and a release of them frees their seats; licenses.list_assignments lists every assignment once`,
      rules: [
        'LIC-ATTACH-BATCH',
        'LIC-ATTACH-SKIP-ASSIGNED',
        'LIC-ATTACH-ALL-ASSIGNED-OK',
        'LIC-ATTACH-MIXED-BATCH',
        'LIC-POOL-USAGE',
        'LIC-POOL-REMAINING',
        'LIC-RELEASE-FREES-SEAT',
        'LIC-ASSIGNMENTS-LIST',
      ],
    },
    async (t) => {
      const setup = await createLicensePool(t, SEATS);
      const first = seatsInOrder(t, setup, ASSIGNED);
      // interface.md does not show a maximum batch size: a target refusing this many at once blocks the scenario, it fails nothing.
      t.setup(await attachLicenses(t, setup, first));
      const held = await holders(t, setup);
      t.check('LIC-ATTACH-BATCH', () => expect(held, `the ${ASSIGNED} entities of one batch all hold the license`).toEqual(sorted(first.map((item) => item.entity_id))));
      let usage = ASSIGNED;
      await expectPool(t, setup, 'LIC-ATTACH-BATCH', { usage, remaining: SEATS - usage }, `one batch of ${ASSIGNED} new entities takes ${ASSIGNED} seats`);

      // Read oldest first, the last entities lie past the first 100 rows; read newest first, the first ones do.
      const ends = [...first.slice(0, AT_EACH_END), ...first.slice(-AT_EACH_END)].map(withoutFeature);
      t.expectOk(await attachLicenses(t, setup, ends), 'LIC-ATTACH-ALL-ASSIGNED-OK');
      await expectPool(t, setup, 'LIC-ATTACH-SKIP-ASSIGNED', { usage, remaining: SEATS - usage }, `the ${ends.length} entities from both ends of the assigned set hold the license already: they take no seat`);

      const fresh = seatsInOrder(t, setup, NEW_IN_MIXED_BATCH);
      t.expectOk(await attachLicenses(t, setup, [...ends.slice(0, AT_EACH_END), ...fresh, ...ends.slice(AT_EACH_END)]), 'LIC-ATTACH-MIXED-BATCH');
      const afterMixed = await holders(t, setup);
      t.check('LIC-ATTACH-MIXED-BATCH', () => expect(afterMixed, 'the new entities of a mixed batch are assigned').toEqual(expect.arrayContaining(fresh.map((item) => item.entity_id))));
      // The new entities are assigned (above): any seat beyond theirs went to an entity that held one already.
      usage += NEW_IN_MIXED_BATCH;
      await expectPool(t, setup, 'LIC-ATTACH-SKIP-ASSIGNED', { usage, remaining: SEATS - usage }, `a batch of ${ends.length} assigned and ${NEW_IN_MIXED_BATCH} new entities takes ${NEW_IN_MIXED_BATCH} seats`);

      const released = ends.map((item) => item.entity_id);
      t.expectOk(await releaseLicenses(t, setup, released), 'LIC-RELEASE-FREES-SEAT');
      usage -= released.length;
      await expectPool(t, setup, 'LIC-RELEASE-FREES-SEAT', { usage, remaining: SEATS - usage }, `a release of the ${released.length} entities from both ends frees their seats`);

      const { list } = t.expectOk(await t.client.call('licenses.list_assignments', { customer_id: setup.customerId, plan_id: setup.licensePlan.id }), 'LIC-ASSIGNMENTS-LIST');
      const stillAssigned = [...first, ...fresh].map((item) => item.entity_id).filter((id) => !released.includes(id));
      t.check('LIC-ASSIGNMENTS-LIST', () =>
        expect((list ?? []).map((assignment) => assignment.entity_id).sort(), `one active assignment for each of the ${stillAssigned.length} entities still assigned, none for the released ones`).toEqual(sorted(stillAssigned)),
      );
    },
  ),
  scenario(
    {
      id: 'licenses.past-100-pools',
      title: `a customer holding a plan that offers ${POOLS} license plans: licenses.list lists all ${POOLS} pools, and licenses.attach assigns a seat of the first and of the last one`,
      rules: ['LIC-LIST-CUSTOMER-POOLS', 'LIC-ATTACH-BATCH', 'LIC-POOL-USAGE'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const licensePlans = await inBatches(Array.from({ length: POOLS }), SETUP_WIDTH, () => createPlan(t));
      const offered = licensePlans.map((plan) => plan.id);
      // interface.md shows neither the wire name of license links nor a most a plan may carry: a refusal blocks, it fails nothing.
      const parent = await createPlan(t, { group: t.ns.id('grp'), licenses: offered.map((id) => ({ license_plan_id: id, included: 1 })) });
      requireLicenseLinks(t, parent, offered);
      const customer = await createCustomer(t);
      await attach(t, customer.id, parent.id);

      const listPools = async () => t.expectOk(await t.client.call('licenses.list', { customer_id: customer.id }), 'LIC-LIST-CUSTOMER-POOLS').list;
      const pools = await listPools();
      t.check('LIC-LIST-CUSTOMER-POOLS', () =>
        expect(pools.map((p) => `${p.parent_plan_id} / ${p.license_plan_id}`).sort(), `licenses.list shows the ${POOLS} pools ${parent.id} offers, each once`).toEqual(offered.map((id) => `${parent.id} / ${id}`).sort()),
      );

      // The first and last license plans made: one of them lies past the first 100 pools, whichever way a target reads them.
      const ends = [offered[0]!, offered.at(-1)!];
      for (const licensePlanId of ends) {
        const entityId = t.ns.id('seat');
        t.ledger.record({ kind: 'entity', id: entityId, customer_id: customer.id });
        const entities = [{ entity_id: entityId, name: `Seat ${entityId}`, feature_id: seat.id }];
        t.expectOk(await t.client.call('licenses.attach', { customer_id: customer.id, plan_id: licensePlanId, entities }), 'LIC-ATTACH-BATCH');
      }
      const after = await listPools();
      t.check('LIC-POOL-USAGE', () =>
        expect(ends.map((id) => after.find((p) => p.license_plan_id === id)?.usage), `one seat assigned in each of the pools of ${ends.join(' and ')}`).toEqual([1, 1]),
      );
    },
  ),
];
