/**
 * The control plane under `/_fake/`: test-only calls outside the interface (see
 * spec/control-plane.ts). Reset, clock, forcing states the public API cannot produce, reading
 * recorded usage events, tenants for parallel test files, and state snapshots. Every call acts on
 * the tenant of the bearer key; the admin key, when one is configured, may act on every tenant.
 */
import { timingSafeEqual } from 'node:crypto';
import { CONTROL_PREFIX, type ControlCallName, controlCalls, LATEST_TIME } from '../spec/control-plane.ts';
import { DomainError } from './domain/context.ts';
import { type EventsListInput, listEvents } from './domain/events.ts';
import { countByKind, forceState, runDue } from './domain/lifecycle.ts';
import { errorResponse, jsonResponse, readJsonBody } from './http/json.ts';
import { bearerToken, DEFAULT_API_VERSION, formatIssues } from './router.ts';
import { StateFileError } from './state.ts';
import type { TenantStates } from './tenant-states.ts';
import { TenantLimitError, type Tenants } from './tenants.ts';

export interface ControlPlaneOptions {
  readonly tenants: Tenants;
  readonly bodyLimit: number;
  readonly faultRules: readonly string[];
  /** The tenant operations of the fake it belongs to. */
  readonly states: TenantStates;
  readonly adminKey?: string;
}

/** A snapshot may be far larger than a request of the interface. */
const STATE_BODY_LIMIT = 256 * 1024 * 1024;

export function isControlPath(pathname: string): boolean {
  return pathname.startsWith(`${CONTROL_PREFIX}/`);
}

function sameSecret(given: string, expected: string | undefined): boolean {
  if (expected === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function createControlPlane(options: ControlPlaneOptions): (request: Request) => Promise<Response> {
  const { tenants, states } = options;
  const health = () => jsonResponse(200, { fake: true, api_version: DEFAULT_API_VERSION, faults: options.faultRules });

  return async function control(request: Request): Promise<Response> {
    const name = new URL(request.url).pathname.slice(CONTROL_PREFIX.length + 1);
    if (!Object.hasOwn(controlCalls, name)) return errorResponse('route_not_found', `No control call ${name}`, 'sandbox');
    const call = controlCalls[name as ControlCallName];
    const key = bearerToken(request);
    if (key === undefined) return errorResponse('no_secret_key', 'Secret key not found in Authorization header', 'sandbox');
    const admin = sameSecret(key, options.adminKey);
    const tenant = admin ? undefined : tenants.open(key);
    if (!admin && tenant === undefined) return errorResponse('invalid_secret_key', 'Invalid secret key', 'sandbox');
    const env = tenant?.env ?? 'sandbox';
    if (name === 'health' && request.method === 'GET') return health();
    if (request.method !== 'POST') return errorResponse('method_not_allowed', `${CONTROL_PREFIX}/${name} takes POST`, env, { allow: 'POST' });
    const body = await readJsonBody(request, name === 'state.import' ? Math.max(options.bodyLimit, STATE_BODY_LIMIT) : options.bodyLimit);
    if (!body.ok) return errorResponse(body.code, body.message, env);
    const parsed = call.request.safeParse(body.value);
    if (!parsed.success) return errorResponse('invalid_inputs', formatIssues(parsed.error.issues), env);
    const input = parsed.data as Record<string, unknown>;
    const all = input['all'] === true;
    if (all && !admin) return errorResponse('invalid_request', `${name} of every tenant takes the admin key; a tenant's key acts on its own tenant only`, env);

    // Calls that need no tenant of their own.
    switch (name as ControlCallName) {
      case 'health':
        return health();
      case 'tenants.create':
        try {
          const created = states.createTenant();
          return jsonResponse(200, { org: created.org, sandbox_key: created.sandboxKey, live_key: created.liveKey });
        } catch (error) {
          if (error instanceof TenantLimitError) return errorResponse('invalid_request', error.message, env);
          throw error;
        }
      case 'reset':
        if (all) {
          states.reset();
          return jsonResponse(200, { success: true });
        }
        break;
      case 'state.export':
        if (all) return jsonResponse(200, states.exportState());
        break;
      case 'state.import':
        if (admin) return importState(input, env);
        break;
    }
    if (tenant === undefined) return errorResponse('invalid_request', `${name} acts on one tenant: call it with that tenant's key, not the admin key`, env);

    const ctx = tenant;
    const { clock } = tenant;
    try {
      switch (name as ControlCallName) {
        case 'reset':
          states.resetTenant(key);
          return jsonResponse(200, { success: true });
        case 'tenants.delete': {
          const org = tenants.orgOf(key)!;
          try {
            states.deleteTenant(org);
          } catch {
            return errorResponse('invalid_request', `${org} is a configured organisation; only tenants made by tenants.create can be deleted`, env);
          }
          return jsonResponse(200, { success: true });
        }
        case 'state.export':
          return jsonResponse(200, states.exportState(key));
        case 'state.import': {
          const own = (input['tenants'] as unknown[]).every((entry) => isTenantEntry(entry) && entry.org === tenant.org && entry.env === tenant.env);
          if (!own) return errorResponse('invalid_request', `A tenant's key imports a snapshot of its own tenant only (${tenant.org}, ${tenant.env}); every tenant takes the admin key`, env);
          return importState(input, env);
        }
        case 'clock.get':
          return jsonResponse(200, clock.state());
        case 'clock.set': {
          const change = input as { now?: number; frozen?: boolean };
          if (change.now !== undefined && change.now < clock.now()) {
            return errorResponse('invalid_request', `The clock cannot move backwards (now ${clock.now()})`, env);
          }
          clock.set(change);
          runDue(ctx);
          return jsonResponse(200, clock.state());
        }
        case 'clock.advance': {
          const { ms } = input as { ms: number };
          if (clock.now() + ms > LATEST_TIME) return errorResponse('invalid_request', `The clock cannot move past ${LATEST_TIME} (now ${clock.now()})`, env);
          clock.advance(ms);
          return jsonResponse(200, { ...clock.state(), ran: countByKind(runDue(ctx)) });
        }
        case 'records.force_state': {
          const { record_id, state, at } = input as { record_id: string; state: 'past_due' | 'active' | 'expired' | 'scheduled'; at?: number };
          runDue(ctx);
          return jsonResponse(200, forceState(ctx, record_id, state, at));
        }
        case 'events.list':
          return jsonResponse(200, listEvents(tenant.store, input as EventsListInput));
        case 'health':
        case 'tenants.create':
          break;
      }
    } catch (error) {
      if (error instanceof DomainError) return errorResponse(error.code, error.message, env);
      throw error;
    }
    throw new Error(`control call ${name} has no handler`);
  };

  function importState(input: Record<string, unknown>, env: 'sandbox' | 'live'): Response {
    try {
      states.importState(input);
    } catch (error) {
      if (error instanceof StateFileError) return errorResponse('invalid_inputs', error.message, env);
      throw error;
    }
    return jsonResponse(200, { success: true });
  }
}

function isTenantEntry(value: unknown): value is { org: unknown; env: unknown } {
  return typeof value === 'object' && value !== null;
}
