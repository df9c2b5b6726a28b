/**
 * The recorded usage events, as the control plane's `events.list` pages through them: oldest first,
 * filtered by customer, `limit` at a time. Events are only ever appended, so a position in the log
 * (its index and the event's id, checked on the way back) stays valid while more arrive.
 */
import type { z } from 'zod';
import type { controlCalls } from '../../spec/control-plane.ts';
import type { TenantStore } from '../store/tenant-store.ts';
import { fail } from './context.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';

export type EventsListInput = z.output<(typeof controlCalls)['events.list']['request']>;
type EventsPage = z.input<(typeof controlCalls)['events.list']['response']>;

/** Where the page after `cursor` starts in the log; a cursor naming no event of this log is 400 invalid_cursor. */
function startIndex(store: TenantStore, cursor: string): number {
  const position = decodeCursor(cursor);
  if (position === undefined) return 0;
  if (store.events[position.t]?.id !== position.id) fail('invalid_cursor', 'cursor names no position in this event log');
  return position.t + 1;
}

export function listEvents(store: TenantStore, input: EventsListInput): EventsPage {
  const list: EventsPage['list'] = [];
  let index = startIndex(store, input.start_cursor);
  for (; index < store.events.length && list.length < input.limit; index++) {
    const event = store.events[index]!;
    if (input.customer_id !== undefined && event.customerId !== input.customer_id) continue;
    list.push({
      id: event.id,
      customer_id: event.customerId,
      entity_id: event.entityId,
      feature_id: event.featureId,
      event_name: event.eventName,
      value: event.value,
      properties: event.properties,
      timestamp: event.timestamp,
    });
  }
  const hasMore = index < store.events.length;
  return { list, has_more: hasMore, next_cursor: hasMore ? encodeCursor({ t: index - 1, id: store.events[index - 1]!.id }) : null };
}
