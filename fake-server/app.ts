/**
 * The fake as one `(Request) => Promise<Response>` handler, with no socket: routing to the /v1
 * router or the control plane, faults applied, seed replayed on reset. Every failure becomes a JSON
 * error body; nothing a client sends can crash it. `reply` is the same fake for a request already
 * read off a socket, without web Requests or Responses (the node adapter's fast path).
 */
import type { Clock } from './clock.ts';
import { type ClientCompat, compatAdapter } from './client-compat.ts';
import { createControlPlane, isControlPath } from './control-plane.ts';
import type { OperationHandlers, TextHandlers } from './domain/context.ts';
import { handlers as realHandlers, textHandlers as realTextHandlers } from './domain/handlers.ts';
import type { Fault, HandlerOverrides } from './faults/fault.ts';
import { type BodyText, errorReply, readBodyText, type Reply, toResponse } from './http/json.ts';
import type { RequestHead, SocketRequestHead } from './http/request-head.ts';
import { createRouter } from './router.ts';
import { openOrFail, type Seed, tenantStates, type TenantStates } from './tenant-states.ts';
import { type ApiKeyConfig, DEFAULT_KEYS, Tenants } from './tenants.ts';

export type { Seed, SeedCall } from './tenant-states.ts';
export type { CreatedTenant } from './tenants.ts';

export interface FakeAppOptions {
  readonly keys?: readonly ApiKeyConfig[];
  /** Seed of the ID generators (each tenant's is derived from it). */
  readonly idSeed?: number;
  /** Start time of every tenant's clock (ms) and whether it starts frozen; a reset brings a tenant's clock back here. */
  readonly now?: number;
  readonly frozen?: boolean;
  readonly seed?: Seed;
  readonly faults?: readonly Fault[];
  /** Largest request body accepted, in bytes (default 1 MiB). */
  readonly bodyLimit?: number;
  readonly validateResponses?: boolean;
  /** Answer as a published client expects where it disagrees with interface.md (DESIGN.md, decision 8). Off: exactly interface.md. */
  readonly clientCompat?: ClientCompat;
  /** How many organisations `tenants.create` may hold at once (default 1000). */
  readonly maxTenants?: number;
  /** A secret that may reset, export and import every tenant through the control plane. None: no caller can. */
  readonly adminKey?: string;
  /** Called with unexpected errors (a fake bug); they are answered 500. */
  readonly onInternalError?: (error: unknown) => void;
}

export interface FakeApp extends TenantStates {
  readonly fetch: (request: Request) => Promise<Response>;
  /** The clock of the first configured key's tenant. */
  readonly clock: Clock;
  /** The clock of the tenant `key` opens. */
  readonly clockOf: (key: string) => Clock;
  /** The configured keys and those of created tenants. */
  readonly keys: readonly ApiKeyConfig[];
  readonly faults: readonly Fault[];
  /** Largest request body accepted, in bytes. */
  readonly bodyLimit: number;
  /**
   * Serves a request whose body was read whole (or refused as too large). Undefined while a fault
   * rewrites raw HTTP requests or responses: those need `fetch`.
   */
  readonly reply: ((head: SocketRequestHead, body: BodyText) => Reply | Promise<Reply>) | undefined;
}

/** A node-free request head over a web Request. */
function headOf(request: Request): RequestHead {
  return { method: request.method, path: new URL(request.url).pathname, header: (name) => request.headers.get(name) };
}

async function replyOf(response: Response): Promise<Reply> {
  return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
}

/**
 * The text handlers an app may use: those of operations whose answer nothing rewrites on its way out
 * (their handler is the domain's own, no fault rewrites outputs, responses are not validated).
 */
function usableTextHandlers(handlers: OperationHandlers, faults: readonly Fault[], validateResponses: boolean): TextHandlers {
  if (validateResponses || faults.some((fault) => fault.output !== undefined)) return {};
  return Object.fromEntries(Object.entries(realTextHandlers).filter(([name]) => handlers[name as keyof OperationHandlers] === realHandlers[name as keyof OperationHandlers]));
}

function withOverrides(overrides: readonly HandlerOverrides[]): OperationHandlers {
  const composed: Record<string, unknown> = { ...realHandlers };
  for (const override of overrides) {
    for (const [name, wrap] of Object.entries(override)) {
      composed[name] = (wrap as (real: unknown) => unknown)(composed[name]);
    }
  }
  return composed as unknown as OperationHandlers;
}

export function createFakeApp(options: FakeAppOptions = {}): FakeApp {
  const configuredKeys = options.keys ?? DEFAULT_KEYS;
  const tenants = new Tenants(configuredKeys, {
    clock: { ...(options.now !== undefined && { now: options.now }), frozen: options.frozen ?? false },
    idSeed: options.idSeed ?? 1,
    ...(options.maxTenants !== undefined && { maxOrganisations: options.maxTenants }),
  });
  const faults = options.faults ?? [];
  const compat = options.clientCompat === undefined ? undefined : compatAdapter(options.clientCompat);
  // Compatibility first, faults around it: a fault breaks what the client-compatible fake would answer.
  const handlers = withOverrides([...(compat ? [compat.handlers] : []), ...faults.flatMap((fault) => (fault.handlers ? [fault.handlers] : []))]);
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  const onInternalError = options.onInternalError ?? ((error) => console.error('[fake] internal error:', error));
  const states = tenantStates({ tenants, configuredKeys, handlers, seed: options.seed });

  const validateResponses = options.validateResponses ?? false;
  const textHandlers = usableTextHandlers(handlers, faults, validateResponses);
  const router = createRouter({ tenants, handlers, textHandlers, faults, validateResponses, ...(compat && { requestSchemas: compat.requestSchemas }) });
  const control = createControlPlane({ tenants, bodyLimit, faultRules: faults.map((fault) => fault.rule), states, ...(options.adminKey !== undefined && { adminKey: options.adminKey }) });

  const internalError = (error: unknown): Reply => {
    onInternalError(error);
    return errorReply('internal_error', 'Internal error in the fake; this is a bug, please report it', 'sandbox');
  };

  // What a request fault may use of the fake: AUTH-BEARER-REQUIRED serves a keyless request as the first key, whatever keys the fake was given.
  const fakeOfFaults = { firstKey: (configuredKeys[0] ?? DEFAULT_KEYS[0]!).key };

  async function fetch(incoming: Request): Promise<Response> {
    try {
      const request = faults.reduce((current, fault) => (fault.request ? fault.request(current, fakeOfFaults) : current), incoming);
      if (isControlPath(new URL(request.url).pathname)) return await control(request);
      let response = toResponse(router(headOf(request), await readBodyText(request, bodyLimit)));
      for (const fault of faults) if (fault.response) response = await fault.response(response, request);
      return response;
    } catch (error) {
      return toResponse(internalError(error));
    }
  }

  /** The control plane takes web Requests; its calls are few, so they are rebuilt as one. */
  async function controlReply(head: SocketRequestHead, body: BodyText): Promise<Reply> {
    if (!body.ok) return errorReply(body.code, body.message, 'sandbox');
    const hasBody = head.method !== 'GET' && head.method !== 'HEAD';
    return replyOf(await control(new Request(`http://fake.invalid${head.path}`, { method: head.method, headers: head.headers(), ...(hasBody && { body: body.text }) })));
  }

  function reply(head: SocketRequestHead, body: BodyText): Reply | Promise<Reply> {
    try {
      if (isControlPath(head.path)) return controlReply(head, body).catch(internalError);
      return router(head, body);
    } catch (error) {
      return internalError(error);
    }
  }

  const needsWebRequests = faults.some((fault) => fault.request !== undefined || fault.response !== undefined);
  states.reset();
  return {
    ...states,
    fetch,
    clock: openOrFail(tenants, configuredKeys[0]!.key).clock,
    clockOf: (key) => openOrFail(tenants, key).clock,
    get keys() {
      return tenants.keys;
    },
    faults,
    bodyLimit,
    reply: needsWebRequests ? undefined : reply,
  };
}
