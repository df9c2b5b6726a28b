/**
 * Control-plane steps, where the target has one: clock moves (a day, a month, exactly onto the next
 * reset or period end the model announced, a millisecond before or after it, across several of
 * them) and forced states (past due, expired now or later, scheduled, back to active) of a record
 * both sides find by what it holds.
 */
import fc from 'fast-check';
import { defineCommand, index, pick, weighted, type CommandSpec, type RunContext } from '../command.ts';
import type { Lockstep, RecordSelector } from '../lockstep.ts';

const DAY = 86_400_000;

const moveArgs = fc.record({
  kind: weighted({ exact: 4, 'just-before': 1, 'just-after': 1, several: 2, days: 2 }),
  which: fc.nat({ max: 3 }),
  days: fc.constantFrom(1, 7, 30, 31, 45, 400),
});

/** Where a move goes: onto (or next to) one of the instants the model announced, or some days on. */
function destination(context: RunContext, args: typeof moveArgs extends fc.Arbitrary<infer A> ? A : never): number {
  const { world } = context;
  const upcoming = world.upcoming();
  const at = upcoming[Math.min(args.which, upcoming.length - 1)];
  if (at === undefined || args.kind === 'days') return world.now + args.days * DAY;
  if (args.kind === 'just-before') return Math.max(world.now + 1, at - 1);
  if (args.kind === 'just-after') return at + 1;
  if (args.kind === 'several') return upcoming[Math.min(upcoming.length - 1, args.which + 2)]! + 1;
  return at;
}

interface LiveRecord {
  readonly id: string;
  readonly plan_id: string;
  readonly entity_id: string | null;
  readonly started_at: number;
}

/** A customer's active and scheduled subscriptions as one side lists them (a resolving read, not compared), oldest first. */
export async function liveRecords(lockstep: Lockstep, command: string, side: 'model' | 'target', customerId: string): Promise<LiveRecord[]> {
  const answer = await lockstep.resolve(command, side, 'subscriptions.list', { customer_id: customerId, statuses: ['active', 'scheduled'], limit: 200 });
  const list = answer.status === 200 ? (answer.body as { list: LiveRecord[] }).list : [];
  return [...list].sort((a, b) => a.plan_id.localeCompare(b.plan_id) || String(a.entity_id).localeCompare(String(b.entity_id)) || a.started_at - b.started_at);
}

/** The record a selector names among a side's records. */
export function selectRecord(records: readonly LiveRecord[], select: RecordSelector): LiveRecord | undefined {
  return records.filter((r) => r.plan_id === select.plan_id && r.entity_id === select.entity_id)[select.nth];
}

/**
 * Moves the program's clock by `ms` on both sides (the clock of the organisation's other environment
 * too, once the program wrote there: one move over both), noting the dimensions the move reaches.
 */
export async function moveClock(context: RunContext, ms: number, extraTags: readonly string[] = []): Promise<void> {
  const { world } = context;
  const to = world.now + ms;
  const crossed = world.upcoming().filter((at) => at <= to);
  if (crossed.includes(to)) context.reached('clock-on-boundary');
  if (crossed.length >= 2) context.reached('several-resets-one-move');
  if (world.locks.length > 0 && crossed.length > 0) context.reached('lock-across-reset');
  const tags = [...(world.locks.length > 0 ? ['lock-expiry'] : []), ...extraTags];
  const moved = await context.lockstep.control(context.command, 'clock.advance', { model: { ms }, target: { ms } }, tags);
  if (world.live) await context.lockstep.control(context.command, 'clock.advance', { model: { ms }, target: { ms } }, tags, undefined, { environment: 'live' });
  const ran = (moved.model as { ran?: Record<string, number> }).ran ?? {};
  if ((ran['grant.reset'] ?? 0) >= 2) context.reached('several-resets-one-move');
}

export const controlCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'clock.advance',
    part: 'control',
    weight: 5,
    control: true,
    args: moveArgs,
    async run(context, args) {
      const ms = destination(context, args) - context.world.now;
      if (ms > 0) await moveClock(context, ms);
    },
  }),
  defineCommand({
    name: 'records.force_state',
    part: 'control',
    weight: 2,
    control: true,
    args: fc.record({ customer: index, record: index, state: fc.constantFrom('past_due', 'past_due', 'expired', 'expired-later', 'scheduled', 'active') }),
    applies: (world) => world.customers.length > 0,
    async run(context, { customer, record, state }) {
      const customerId = pick(context.world.customers, customer)!;
      const inModel = await liveRecords(context.lockstep, context.command, 'model', customerId);
      const chosen = pick(inModel, record);
      if (chosen === undefined) return;
      const select: RecordSelector = { customer_id: customerId, plan_id: chosen.plan_id, entity_id: chosen.entity_id, nth: inModel.filter((r) => r.plan_id === chosen.plan_id && r.entity_id === chosen.entity_id).indexOf(chosen) };
      const mine = selectRecord(await liveRecords(context.lockstep, context.command, 'target', customerId), select);
      if (mine === undefined) return;
      const later = context.world.upcoming()[0] ?? context.world.now + DAY;
      const forced = state === 'expired-later' ? 'expired' : state;
      const at = state === 'expired-later' ? { at: later } : {};
      if (state === 'expired-later') context.world.instants.add(later);
      context.reached('forced-state');
      await context.lockstep.control(context.command, 'records.force_state', { model: { record_id: chosen.id, state: forced, ...at }, target: { record_id: mine.id, state: forced, ...at } }, [forced], select);
    },
  }),
];
