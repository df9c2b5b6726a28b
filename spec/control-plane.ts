/**
 * The fake's control plane: test-only calls under `/_fake/`, outside the interface and outside
 * `/v1/`. The suite uses them, when the target offers them, to reach states the public API cannot
 * produce (past_due, expired, scheduled) and to move the clock. They are not in the OpenAPI export.
 *
 * Every call is `POST /_fake/<name>` with a JSON body and the same bearer key as the public API.
 * Every call acts on the key's tenant only (an organisation in one environment, with its own data
 * and clock). Calls over every tenant (`all: true`) take the fake's admin key instead, which a fake
 * has only when one is configured.
 */
import { z } from 'zod';

export const CONTROL_PREFIX = '/_fake';

const Timestamp = z.int().nonnegative();

export const ClockState = z.object({ now: Timestamp, frozen: z.boolean() });

/** A state the public API cannot produce. `active` clears `past_due` or brings a record back. */
export const ForcedState = z.enum(['past_due', 'active', 'expired', 'scheduled']);

/** The envelope of a state snapshot; the fake validates the tenants inside it (fake-server/state.ts). */
export const StateFile = z.looseObject({ format: z.literal('besi-fake-state'), version: z.literal(1), tenants: z.array(z.unknown()) });

export const controlCalls = {
  /** Liveness and identity; the suite probes it to learn whether the target has a control plane. */
  health: { request: z.object({}), response: z.object({ fake: z.literal(true), api_version: z.string(), faults: z.array(z.string()) }) },
  /** The key's tenant back to its start state (its seed), its clock back where it started. `all: true` (admin key): every tenant. */
  reset: { request: z.object({ all: z.boolean().optional() }), response: z.object({ success: z.literal(true) }) },
  /** A new organisation with its own keys, data and clocks, for one test file of a shared fake. Any accepted key may ask. */
  'tenants.create': { request: z.object({}), response: z.object({ org: z.string(), sandbox_key: z.string(), live_key: z.string() }) },
  /** Deletes the key's organisation, if `tenants.create` made it: its keys stop working and its data goes. */
  'tenants.delete': { request: z.object({}), response: z.object({ success: z.literal(true) }) },
  /** A snapshot of the key's tenant (`all: true`, admin key: of every tenant), as a state file holds it. */
  'state.export': { request: z.object({ all: z.boolean().optional() }), response: StateFile },
  /** Puts the tenants a snapshot holds into its state: only the key's own tenant, unless the admin key asks. Validated first; a bad snapshot changes nothing. */
  'state.import': { request: StateFile, response: z.object({ success: z.literal(true) }) },
  'clock.get': { request: z.object({}), response: ClockState },
  /** Freezes or unfreezes the clock, optionally jumping to `now` (never backwards). */
  'clock.set': { request: z.object({ now: Timestamp.optional(), frozen: z.boolean().optional() }), response: ClockState },
  /** Moves the clock forward and runs, in time order, everything that falls due. */
  'clock.advance': {
    request: z.object({ ms: z.int().positive() }),
    response: ClockState.extend({ events: z.array(z.object({ at: Timestamp, kind: z.string(), id: z.string() })) }),
  },
  /**
   * Puts one subscription or purchase (by the `id` that `subscriptions.list` / `purchases.list` show)
   * into a state. With `at` (expired only), the record gets that `expires_at` and expires when the
   * clock reaches it.
   */
  'records.force_state': {
    request: z
      .object({ record_id: z.string().min(1), state: ForcedState, at: Timestamp.optional() })
      .refine((body) => body.at === undefined || body.state === 'expired', { message: 'at applies to state expired only', path: ['at'] }),
    response: z.object({ record_id: z.string(), status: z.enum(['active', 'scheduled', 'expired']), past_due: z.boolean() }),
  },
  /**
   * The usage events the fake recorded for the key's tenant (from `balances.check` with
   * `send_event` and from `balances.track`), oldest first. The interface has no read call for them.
   */
  'events.list': {
    request: z.object({ customer_id: z.string().optional() }),
    response: z.object({
      list: z.array(
        z.object({
          id: z.string(),
          customer_id: z.string(),
          entity_id: z.string().nullable(),
          feature_id: z.string(),
          event_name: z.string().nullable(),
          value: z.number(),
          properties: z.record(z.string(), z.unknown()),
          timestamp: Timestamp,
        }),
      ),
    }),
  },
} as const;

export type ControlCallName = keyof typeof controlCalls;
