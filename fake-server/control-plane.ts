/**
 * The control plane under `/_fake/`: test-only calls outside the interface (see
 * spec/control-plane.ts). Reset, clock, forcing states the public API cannot produce, and reading
 * recorded usage events. Record-level calls act on the tenant of the bearer key.
 */
import { CONTROL_PREFIX, type ControlCallName, controlCalls, LATEST_TIME } from '../spec/control-plane.ts';
import type { Clock } from './clock.ts';
import { type DomainContext, DomainError } from './domain/context.ts';
import { type EventsListInput, listEvents } from './domain/events.ts';
import { countByKind, forceState, runDue } from './domain/lifecycle.ts';
import { errorResponse, jsonResponse, readJsonBody } from './http/json.ts';
import type { IdGenerator } from './ids.ts';
import { bearerToken, DEFAULT_API_VERSION, formatIssues } from './router.ts';
import type { Tenants } from './tenants.ts';

export interface ControlPlaneOptions {
  readonly tenants: Tenants;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly bodyLimit: number;
  readonly faultRules: readonly string[];
  readonly reset: () => void;
}

export function isControlPath(pathname: string): boolean {
  return pathname.startsWith(`${CONTROL_PREFIX}/`);
}

export function createControlPlane(options: ControlPlaneOptions): (request: Request) => Promise<Response> {
  const { tenants, clock, ids, bodyLimit } = options;

  /** Runs what is due in every tenant, in time order within each. */
  function runAllDue() {
    return tenants.stores().flatMap((store) => runDue({ store, clock, ids }));
  }

  return async function control(request: Request): Promise<Response> {
    const name = new URL(request.url).pathname.slice(CONTROL_PREFIX.length + 1);
    if (!Object.hasOwn(controlCalls, name)) return errorResponse('route_not_found', `No control call ${name}`, 'sandbox');
    const call = controlCalls[name as ControlCallName];
    const key = bearerToken(request);
    if (key === undefined) return errorResponse('no_secret_key', 'Secret key not found in Authorization header', 'sandbox');
    const store = tenants.storeFor(key);
    if (store === undefined) return errorResponse('invalid_secret_key', 'Invalid secret key', 'sandbox');
    if (name === 'health' && request.method === 'GET') return jsonResponse(200, { fake: true, api_version: DEFAULT_API_VERSION, faults: options.faultRules });
    if (request.method !== 'POST') return errorResponse('method_not_allowed', `${CONTROL_PREFIX}/${name} takes POST`, store.env, { allow: 'POST' });
    const body = await readJsonBody(request, bodyLimit);
    if (!body.ok) return errorResponse(body.code, body.message, store.env);
    const parsed = call.request.safeParse(body.value);
    if (!parsed.success) return errorResponse('invalid_inputs', formatIssues(parsed.error.issues), store.env);
    const ctx: DomainContext = { store, clock, ids };
    const input = parsed.data as Record<string, unknown>;
    try {
      switch (name as ControlCallName) {
        case 'health':
          return jsonResponse(200, { fake: true, api_version: DEFAULT_API_VERSION, faults: options.faultRules });
        case 'reset':
          options.reset();
          return jsonResponse(200, { success: true });
        case 'clock.get':
          return jsonResponse(200, clock.state());
        case 'clock.set': {
          const change = input as { now?: number; frozen?: boolean };
          if (change.now !== undefined && change.now < clock.now()) {
            return errorResponse('invalid_request', `The clock cannot move backwards (now ${clock.now()})`, store.env);
          }
          clock.set(change);
          runAllDue();
          return jsonResponse(200, clock.state());
        }
        case 'clock.advance': {
          const { ms } = input as { ms: number };
          if (clock.now() + ms > LATEST_TIME) return errorResponse('invalid_request', `The clock cannot move past ${LATEST_TIME} (now ${clock.now()})`, store.env);
          clock.advance(ms);
          return jsonResponse(200, { ...clock.state(), ran: countByKind(runAllDue()) });
        }
        case 'records.force_state': {
          const { record_id, state, at } = input as { record_id: string; state: 'past_due' | 'active' | 'expired' | 'scheduled'; at?: number };
          runDue(ctx);
          return jsonResponse(200, forceState(ctx, record_id, state, at));
        }
        case 'events.list':
          return jsonResponse(200, listEvents(store, input as EventsListInput));
      }
    } catch (error) {
      if (error instanceof DomainError) return errorResponse(error.code, error.message, store.env);
      throw error;
    }
  };
}
