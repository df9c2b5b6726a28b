/**
 * Scenarios of entities.list's plan, version, statuses and processors filters, and of the plans it
 * hydrates and matches.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createEntity, createFeature, createLicensePool, createPlan, scenario } from '../../support.ts';
import { entityCatalogue, forceState, type ListBody, listIds, listPage, plansHeld, recordIdOf, requirePlanFilter, type Rule } from './support.ts';

export const listFiltersScenarios = [
  scenario(
    {
      id: 'entities.list-plan-filter',
      title: 'The plans filter of entities.list matches plans inherited from the customer and plans held by the entity itself (license seats included), by exact plan id; several plans are OR-ed, each entity listed once',
      rules: ['ENT-PLAN-FILTER-INHERITED', 'ENT-PLAN-FILTER-DIRECT', 'ENT-PLANS-FILTER-WIRE', 'ENT-CUSTOMER-FILTER'],
    },
    async (t) => {
      const { seat, messages } = await entityCatalogue(t);
      const customerPlan = await createPlan(t, { group: t.ns.id('grp'), items: [{ feature_id: messages.id, included: 10, reset: { interval: 'month' } }] });
      const entityPlan = await createPlan(t, { add_on: true, items: [{ feature_id: messages.id, included: 5, reset: { interval: 'month' } }] });
      const otherPlan = await createPlan(t, { group: t.ns.id('grp') });
      // An id that extends another one (`pro` and `pro_annual`): a filter must match plan ids exactly, not by prefix.
      const longerPlan = await createPlan(t, { plan_id: `${customerPlan.id}_annual`, add_on: true });

      const first = await createCustomer(t);
      await attach(t, first.id, customerPlan.id);
      const holder = await createEntity(t, first.id, seat.id);
      const sibling = await createEntity(t, first.id, seat.id);
      await attach(t, first.id, entityPlan.id, { entity_id: holder.id });
      const second = await createCustomer(t);
      await attach(t, second.id, otherPlan.id);
      await attach(t, second.id, longerPlan.id);
      const outsider = await createEntity(t, second.id, seat.id);
      // Which entity the attach gave the plan to is BILL-ATTACH-ENTITY's, read through entities.get (no rule here owns it).
      const [holderPlans, siblingPlans] = [await plansHeld(t, first.id, holder.id), await plansHeld(t, first.id, sibling.id)];
      t.precondition(`billing.attach with entity_id gave ${entityPlan.id} to ${holder.id} only`, () => {
        expect(holderPlans).toContain(entityPlan.id);
        expect(siblingPlans).not.toContain(entityPlan.id);
      });
      // The plan filter's wire name is not shown: the target must read it before the MUST rules rest on it.
      await requirePlanFilter(t, first.id, otherPlan.id);

      // Each customer's listing, joined: listing across the organisation is ENT-LIST-ACROSS-ORG's (entities.list-walk).
      const matching = async (rule: Rule, plans: ListBody['plans'], customers: readonly string[] = [first.id, second.id]) => {
        const ids: string[] = [];
        for (const customerId of customers) ids.push(...(await listIds(t, { customer_id: customerId, plans }, rule)));
        return ids.sort();
      };
      const inherited = await matching('ENT-PLAN-FILTER-INHERITED', [{ id: customerPlan.id }]);
      t.check('ENT-PLAN-FILTER-INHERITED', () =>
        expect(inherited, `a plan held by the customer matches all its entities (inherited), and only that exact plan id (not ${longerPlan.id})`).toEqual([holder.id, sibling.id].sort()),
      );
      const direct = await matching('ENT-PLAN-FILTER-DIRECT', [{ id: entityPlan.id }]);
      t.check('ENT-PLAN-FILTER-DIRECT', () => expect(direct, 'a plan attached to an entity matches that entity only').toEqual([holder.id]));
      const ored = await matching('ENT-PLANS-FILTER-WIRE', [{ id: entityPlan.id }, { id: otherPlan.id }]);
      const once = await matching('ENT-PLANS-FILTER-WIRE', [{ id: customerPlan.id }, { id: entityPlan.id }]);
      t.check('ENT-PLANS-FILTER-WIRE', () => {
        expect(ored, 'several plans are OR-ed').toEqual([holder.id, outsider.id].sort());
        expect(once, 'an entity matching several plans is listed once').toEqual([holder.id, sibling.id].sort());
      });

      // A license seat is a plan of the entity itself.
      const pool = await createLicensePool(t, 2);
      const licensed = await createEntity(t, pool.customerId, pool.seatFeature.id);
      t.setup(await t.client.call('licenses.attach', { customer_id: pool.customerId, plan_id: pool.licensePlan.id, entities: [{ entity_id: licensed.id, name: licensed.name ?? licensed.id }] }));
      const seatPlans = await plansHeld(t, pool.customerId, licensed.id);
      t.precondition(`licenses.attach gave ${licensed.id} a seat of ${pool.licensePlan.id}`, () => expect(seatPlans).toContain(pool.licensePlan.id));
      const bySeat = await matching('ENT-PLAN-FILTER-DIRECT', [{ id: pool.licensePlan.id }], [pool.customerId]);
      t.check('ENT-PLAN-FILTER-DIRECT', () => expect(bySeat, 'an entity holding a license seat matches the license plan').toEqual([licensed.id]));
      const byParent = await matching('ENT-PLAN-FILTER-INHERITED', [{ id: pool.parentPlan.id }], [pool.customerId]);
      t.check('ENT-PLAN-FILTER-INHERITED', () => expect(byParent, 'it also matches the parent plan its customer holds').toEqual([licensed.id]));

      // Archiving a plan keeps it on the customers that hold it (it only cannot be attached again): still matched.
      t.setup(await t.client.call('plans.update', { plan_id: otherPlan.id, archived: true }));
      const stillHeld = await plansHeld(t, second.id, outsider.id);
      t.precondition(`${outsider.id} still inherits the archived ${otherPlan.id}`, () => expect(stillHeld).toContain(otherPlan.id));
      const archived = await matching('ENT-PLAN-FILTER-INHERITED', [{ id: otherPlan.id }]);
      t.check('ENT-PLAN-FILTER-INHERITED', () => expect(archived, 'an archived plan its customer still holds matches the entity').toEqual([outsider.id]));
    },
  ),
  scenario(
    {
      id: 'entities.list-plan-version',
      title: 'A plan filter with versions matches only entities on those versions of the plan',
      rules: ['ENT-PLAN-FILTER-VERSION', 'ENT-PLANS-FILTER-WIRE', 'ENT-PLAN-FILTER-INHERITED', 'ENT-CUSTOMER-FILTER'],
    },
    async (t) => {
      const { seat, messages } = await entityCatalogue(t);
      const plan = await createPlan(t, { group: t.ns.id('grp'), items: [{ feature_id: messages.id, included: 10, reset: { interval: 'month' } }] });
      const other = await createPlan(t, { add_on: true });
      const early = await createCustomer(t);
      await attach(t, early.id, plan.id);
      const onFirst = await createEntity(t, early.id, seat.id);

      const updated = t.setup(await t.client.call('plans.update', { plan_id: plan.id, items: [{ feature_id: messages.id, included: 20, reset: { interval: 'month' } }] }), ['version']);
      t.precondition('changing the items of a held plan makes version 2', () => expect(updated.version).toBe(2));
      const late = await createCustomer(t);
      await attach(t, late.id, plan.id);
      const onSecond = await createEntity(t, late.id, seat.id);

      // The early customer stays on version 1 (PLAN-UPDATE-NEW-VERSION), read through customers.get (no rule here owns it): its grant keeps version 1's items.
      const earlyGrant = Object.values(t.setup(await t.client.call('customers.get', { customer_id: early.id }), ['balances']).balances).find((balance) => balance.feature_id === messages.id)?.granted;
      t.precondition(`${early.id} keeps version 1 of ${plan.id} after the update`, () => expect(earlyGrant).toBe(10));
      await requirePlanFilter(t, early.id, other.id);

      const rule = 'ENT-PLAN-FILTER-VERSION';
      // Each customer's listing, joined: listing across the organisation is ENT-LIST-ACROSS-ORG's.
      const matching = async (versions?: number[]) => {
        const ids: string[] = [];
        for (const customerId of [early.id, late.id]) ids.push(...(await listIds(t, { customer_id: customerId, plans: [{ id: plan.id, ...(versions && { versions }) }] }, rule)));
        return ids.sort();
      };
      const any = await matching();
      t.check('ENT-PLAN-FILTER-INHERITED', () => expect(any, 'without versions, the plan filter matches the entities whose customer holds the plan').toEqual([onFirst.id, onSecond.id].sort()));
      const [v1, v2, both, none] = [await matching([1]), await matching([2]), await matching([1, 2]), await matching([3])];
      t.check(rule, () => {
        expect(v1, 'versions [1] matches the entity whose customer is on version 1').toEqual([onFirst.id]);
        expect(v2, 'versions [2] matches the entity whose customer is on version 2').toEqual([onSecond.id]);
        expect(both, 'versions [1, 2] matches both').toEqual([onFirst.id, onSecond.id].sort());
        expect(none, 'a version nobody holds matches nothing').toEqual([]);
      });
    },
  ),
  scenario(
    {
      id: 'entities.list-statuses',
      title:
        'statuses choose the plans entities.list hydrates and matches (never which entities it lists); by default active and scheduled ones, never an expired one; a past-due plan reads active with past_due true',
      rules: ['ENT-STATUSES-DEFAULT', 'ENT-STATUSES-FILTER', 'STATE-PAST-DUE-READS-ACTIVE', 'ENT-PLAN-FILTER-INHERITED', 'ENT-CUSTOMER-FILTER'],
      needs: ['control-plane'],
    },
    async (t) => {
      const { seat, messages } = await entityCatalogue(t);
      const active = await createPlan(t, { group: t.ns.id('grp'), items: [{ feature_id: messages.id, included: 10, reset: { interval: 'month' } }] });
      const scheduled = await createPlan(t, { add_on: true });
      const ended = await createPlan(t, { add_on: true });
      const unheld = await createPlan(t, { add_on: true });
      const customer = await createCustomer(t);
      await attach(t, customer.id, active.id);
      await attach(t, customer.id, scheduled.id);
      await attach(t, customer.id, ended.id);
      await forceState(t, await recordIdOf(t, customer.id, scheduled.id), 'scheduled');
      await forceState(t, await recordIdOf(t, customer.id, ended.id), 'expired');
      const entity = await createEntity(t, customer.id, seat.id);
      // A customer whose active plan is forced past due below (the other customer's plans stay as they are).
      const bare = await createCustomer(t);
      await attach(t, bare.id, active.id);
      const bareEntity = await createEntity(t, bare.id, seat.id);

      const tracked = [active.id, scheduled.id, ended.id];
      const hydrated = async (rule: 'ENT-STATUSES-DEFAULT' | 'ENT-STATUSES-FILTER', statuses?: ('active' | 'scheduled')[], of = { customerId: customer.id, entityId: entity.id }) => {
        const [listed] = (await listPage(t, { customer_id: of.customerId, ...(statuses && { statuses }) }, rule)).list;
        t.check(rule, () => expect(listed?.id, `statuses ${statuses?.join(',') ?? '(default)'} still lists the entity`).toBe(of.entityId));
        return Object.fromEntries(listed!.subscriptions.filter((s) => tracked.includes(s.plan_id)).map((s) => [s.plan_id, s.status]));
      };
      const byDefault = await hydrated('ENT-STATUSES-DEFAULT');
      t.check('ENT-STATUSES-DEFAULT', () =>
        expect(byDefault, 'by default, active and scheduled plans are hydrated, and an expired one is not').toEqual({ [active.id]: 'active', [scheduled.id]: 'scheduled' }),
      );
      for (const [statuses, expected] of [
        [['active', 'scheduled'], { [active.id]: 'active', [scheduled.id]: 'scheduled' }],
        [['active'], { [active.id]: 'active' }],
        [['scheduled'], { [scheduled.id]: 'scheduled' }],
      ] as const) {
        const got = await hydrated('ENT-STATUSES-FILTER', [...statuses]);
        t.check('ENT-STATUSES-FILTER', () => expect(got, `statuses [${statuses.join(', ')}] hydrates only those plans`).toEqual(expected));
      }

      // Past due is no status of its own: the overdue plan is still hydrated as active, marked past_due (on the bare customer, whose plan the checks below do not read).
      await forceState(t, await recordIdOf(t, bare.id, active.id), 'past_due');
      const overdue = (await listPage(t, { customer_id: bare.id }, 'STATE-PAST-DUE-READS-ACTIVE')).list.find((e) => e.id === bareEntity.id)?.subscriptions.find((s) => s.plan_id === active.id);
      t.check('STATE-PAST-DUE-READS-ACTIVE', () => expect(overdue, 'entities.list embeds a past-due plan as active with past_due true').toMatchObject({ status: 'active', past_due: true }));

      // Plan matching rests on the plan filter, whose wire name is not shown: the target must read it first.
      await requirePlanFilter(t, customer.id, unheld.id);
      const matched = (rule: Rule, planId: string, statuses?: ('active' | 'scheduled')[]) => listIds(t, { customer_id: customer.id, plans: [{ id: planId }], ...(statuses && { statuses }) }, rule);
      const activeMatch = await matched('ENT-PLAN-FILTER-INHERITED', active.id);
      t.check('ENT-PLAN-FILTER-INHERITED', () => expect(activeMatch, 'the plans filter matches an active plan the entity inherits').toEqual([entity.id]));
      const [defaultMatch, endedMatch] = [await matched('ENT-STATUSES-DEFAULT', scheduled.id), await matched('ENT-STATUSES-DEFAULT', ended.id)];
      t.check('ENT-STATUSES-DEFAULT', () => {
        expect(defaultMatch, 'by default, a scheduled plan matches the plans filter').toEqual([entity.id]);
        expect(endedMatch, 'by default, an expired plan does not match the plans filter').toEqual([]);
      });
      const [scheduledAsScheduled, scheduledAsActive, activeAsScheduled] = [
        await matched('ENT-STATUSES-FILTER', scheduled.id, ['scheduled']),
        await matched('ENT-STATUSES-FILTER', scheduled.id, ['active']),
        await matched('ENT-STATUSES-FILTER', active.id, ['scheduled']),
      ];
      t.check('ENT-STATUSES-FILTER', () => {
        expect(scheduledAsScheduled, 'with statuses [scheduled], a scheduled plan matches').toEqual([entity.id]);
        expect(scheduledAsActive, 'with statuses [active], a scheduled plan does not match').toEqual([]);
        expect(activeAsScheduled, 'with statuses [scheduled], an active plan does not match').toEqual([]);
      });
    },
  ),
  scenario(
    {
      id: 'entities.list-statuses-active-only',
      title: 'statuses [scheduled] still lists an entity whose customer holds only an active plan, hydrating none of its plans; statuses [active] hydrates it (no control plane needed)',
      rules: ['ENT-STATUSES-FILTER'],
    },
    async (t) => {
      const { seat, messages } = await entityCatalogue(t);
      const active = await createPlan(t, { items: [{ feature_id: messages.id, included: 10, reset: { interval: 'month' } }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, active.id);
      const entity = await createEntity(t, customer.id, seat.id);
      const hydrated = async (statuses: ('active' | 'scheduled')[]) => {
        const [listed] = (await listPage(t, { customer_id: customer.id, statuses }, 'ENT-STATUSES-FILTER')).list;
        t.check('ENT-STATUSES-FILTER', () => expect(listed?.id, `statuses [${statuses.join(', ')}] still lists the entity`).toBe(entity.id));
        return listed!.subscriptions.filter((s) => s.plan_id === active.id).map((s) => s.status);
      };
      // The nearest valid request first: the active plan hydrated when asked for.
      const asActive = await hydrated(['active']);
      t.check('ENT-STATUSES-FILTER', () => expect(asActive, 'statuses [active] hydrates the active plan').toEqual(['active']));
      const asScheduled = await hydrated(['scheduled']);
      t.check('ENT-STATUSES-FILTER', () => expect(asScheduled, 'statuses [scheduled] hydrates no active plan (exchange 181: the reference ignores statuses)').toEqual([]));
    },
  ),
  scenario(
    {
      id: 'entities.list-replaced-plan',
      title: "After an entity's plan is replaced by another plan of its group, the default entities.list neither embeds nor matches the expired record",
      rules: ['ENT-STATUSES-DEFAULT', 'ENT-CUSTOMER-FILTER'],
    },
    async (t) => {
      const { seat, messages } = await entityCatalogue(t);
      const group = t.ns.id('grp');
      const basic = await createPlan(t, { group, items: [{ feature_id: messages.id, included: 10, reset: { interval: 'month' } }] });
      const premium = await createPlan(t, { group, items: [{ feature_id: messages.id, included: 50, reset: { interval: 'month' } }] });
      const unheld = await createPlan(t, { add_on: true });
      const customer = await createCustomer(t);
      const entity = await createEntity(t, customer.id, seat.id);

      // The entity's own plan replaced by another plan of its group. (A plan's next version is not used: the documented
      // route to one, plans.update, leaves the customers on the current version where they are, and re-attaching a held
      // plan is refused by the reference, 409 plan_already_attached.)
      await attach(t, customer.id, basic.id, { entity_id: entity.id });
      await attach(t, customer.id, premium.id, { entity_id: entity.id });
      // That the attach replaced the plan is billing.attach's, read through entities.get (no rule here owns it).
      const held = await plansHeld(t, customer.id, entity.id);
      t.precondition(`${premium.id} replaced ${basic.id} on ${entity.id}`, () => {
        expect(held).toContain(premium.id);
        expect(held).not.toContain(basic.id);
      });

      const [listed] = (await listPage(t, { customer_id: customer.id }, 'ENT-STATUSES-DEFAULT')).list;
      const embedded = (listed?.subscriptions ?? []).map((subscription) => subscription.plan_id);
      t.check('ENT-STATUSES-DEFAULT', () => {
        expect(listed?.id, 'the entity is listed').toBe(entity.id);
        expect(embedded, "the plan that replaced the entity's plan is embedded").toContain(premium.id);
        expect(embedded, 'the replaced plan is not').not.toContain(basic.id);
        expect((listed?.subscriptions ?? []).map((subscription) => subscription.status), 'no embedded record is expired').not.toContain('expired');
      });
      // Matching rests on the plan filter, whose wire name is not shown: the target must read it first.
      await requirePlanFilter(t, customer.id, unheld.id);
      const matchingBasic = await listIds(t, { customer_id: customer.id, plans: [{ id: basic.id }] }, 'ENT-STATUSES-DEFAULT');
      t.check('ENT-STATUSES-DEFAULT', () => expect(matchingBasic, 'the replaced plan no longer matches the plans filter').toEqual([]));
    },
  ),
  scenario(
    {
      id: 'entities.list-statuses-enum',
      title: 'statuses of entities.list accepts active and scheduled only',
      rules: ['ENT-STATUSES-ENUM', 'ENT-CUSTOMER-FILTER'],
    },
    async (t) => {
      // The accepted values are the controls: each lists the customer's entity.
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      const entity = await createEntity(t, customer.id, seat.id);
      for (const statuses of [['active'], ['scheduled'], ['active', 'scheduled']] as const) {
        const accepted = await listIds(t, { customer_id: customer.id, statuses: [...statuses] }, 'ENT-STATUSES-ENUM');
        t.check('ENT-STATUSES-ENUM', () => expect(accepted, `statuses [${statuses.join(', ')}] is accepted, and lists the customer's entity`).toContain(entity.id));
      }
      for (const statuses of [['expired'], ['past_due'], ['active', 'cancelled']]) {
        const refused = await t.client.call('entities.list', { customer_id: customer.id, statuses: statuses as never });
        t.check('ENT-STATUSES-ENUM', () => expect(refused.ok, `statuses [${statuses.join(', ')}] is outside active, scheduled: expected an error, got ${refused.status}`).toBe(false));
        t.expectError(refused, { rule: 'ENT-STATUSES-ENUM' });
      }
    },
  ),
  scenario(
    {
      id: 'entities.list-processors',
      title: "The processors filter of entities.list lists the entities whose customer has one of the processors (OR-ed); a customer gets Stripe on its first attach",
      rules: ['ENT-PROCESSOR-FILTER', 'ENT-PROCESSORS-WIRE', 'ENT-CUSTOMER-FILTER'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const free = await createPlan(t, { group: t.ns.id('grp') });
      const billed = await createCustomer(t);
      await attach(t, billed.id, free.id);
      const unbilled = await createCustomer(t);
      const billedEntity = await createEntity(t, billed.id, seat.id);
      const unbilledEntity = await createEntity(t, unbilled.id, seat.id);

      const stripeIdOf = async (customerId: string) => t.setup(await t.client.call('customers.get', { customer_id: customerId })).stripe_id;
      const [billedStripe, unbilledStripe] = [await stripeIdOf(billed.id), await stripeIdOf(unbilled.id)];
      t.precondition('a customer has a Stripe customer after its first attach', () => expect(billedStripe ?? null).not.toBeNull());
      // Auto-enabled plans of a shared organisation may give the other customer Stripe too; expect what it has.
      const withStripe = [billedEntity.id, ...((unbilledStripe ?? null) === null ? [] : [unbilledEntity.id])].sort();

      // Each customer's listing, joined: listing across the organisation is ENT-LIST-ACROSS-ORG's.
      const matching = async (rule: Rule, processors: ('stripe' | 'revenuecat' | 'vercel')[]) => {
        const ids: string[] = [];
        for (const customerId of [billed.id, unbilled.id]) ids.push(...(await listIds(t, { customer_id: customerId, processors }, rule)));
        return ids.sort();
      };
      // The processor filter's wire name is not shown: the target must read it before ENT-PROCESSOR-FILTER (MUST) rests on it.
      // A processor none of these customers has lists none of their entities; without the filter, both are listed.
      await t.requireWireName('entities.list.processor_type', async (send) => [
        ...(await listIds(t, { customer_id: billed.id, ...(send && { processors: ['revenuecat' as const] }) })),
        ...(await listIds(t, { customer_id: unbilled.id, ...(send && { processors: ['revenuecat' as const] }) })),
      ]);
      const [stripe, revenuecat, vercel] = [await matching('ENT-PROCESSOR-FILTER', ['stripe']), await matching('ENT-PROCESSOR-FILTER', ['revenuecat']), await matching('ENT-PROCESSOR-FILTER', ['vercel'])];
      t.check('ENT-PROCESSOR-FILTER', () => {
        expect(stripe, 'processors [stripe] lists the entities whose customer has Stripe').toEqual(withStripe);
        expect(revenuecat, 'processors [revenuecat] lists none of these entities').toEqual([]);
        expect(vercel, 'processors [vercel] lists none of these entities').toEqual([]);
      });
      const ored = await matching('ENT-PROCESSORS-WIRE', ['revenuecat', 'stripe']);
      t.check('ENT-PROCESSORS-WIRE', () => expect(ored, 'several processors are OR-ed').toEqual(withStripe));
      t.expectError(await t.client.call('entities.list', { customer_id: billed.id, processors: ['paypal' as never] }), { rule: 'ENT-PROCESSORS-WIRE' });
    },
  ),
];
