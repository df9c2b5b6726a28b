/**
 * The fake as one `(Request) => Promise<Response>` handler, with no socket: routing to the /v1
 * router or the control plane, faults applied, seed replayed on reset. Every failure becomes a JSON
 * error body; nothing a client sends can crash it. `reply` is the same fake for a request already
 * read off a socket, without web Requests or Responses (the node adapter's fast path).
 */
import { type OperationName, operations } from '../spec/operations.ts';
import { Clock } from './clock.ts';
import { createControlPlane, isControlPath } from './control-plane.ts';
import type { DomainContext, OperationHandlers } from './domain/context.ts';
import { handlers as realHandlers } from './domain/handlers.ts';
import type { Fault } from './faults/fault.ts';
import { type BodyText, errorReply, readBodyText, type Reply, toResponse } from './http/json.ts';
import type { RequestHead, SocketRequestHead } from './http/request-head.ts';
import { IdGenerator } from './ids.ts';
import { createRouter } from './router.ts';
import { type ApiKeyConfig, DEFAULT_KEYS, Tenants } from './tenants.ts';

/** One call replayed into the fresh state at start and on every reset. */
export interface SeedCall {
  readonly operation: OperationName;
  readonly body: unknown;
  /** The key (tenant) to run it as; the first configured key by default. */
  readonly key?: string;
}

export interface FakeAppOptions {
  readonly keys?: readonly ApiKeyConfig[];
  /** Seed of the ID generator. */
  readonly idSeed?: number;
  /** Start time of the clock (ms) and whether it starts frozen. */
  readonly now?: number;
  readonly frozen?: boolean;
  readonly seed?: readonly SeedCall[];
  readonly faults?: readonly Fault[];
  /** Largest request body accepted, in bytes (default 1 MiB). */
  readonly bodyLimit?: number;
  readonly validateResponses?: boolean;
  /** Called with unexpected errors (a fake bug); they are answered 500. */
  readonly onInternalError?: (error: unknown) => void;
}

export interface FakeApp {
  readonly fetch: (request: Request) => Promise<Response>;
  /** Back to the start state: empty stores, IDs from the start of their seed, seed calls replayed. */
  readonly reset: () => void;
  readonly clock: Clock;
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

function withFaults(faults: readonly Fault[]): OperationHandlers {
  const composed: Record<string, unknown> = { ...realHandlers };
  for (const fault of faults) {
    for (const [name, wrap] of Object.entries(fault.handlers ?? {})) {
      composed[name] = (wrap as (real: unknown) => unknown)(composed[name]);
    }
  }
  return composed as unknown as OperationHandlers;
}

export function createFakeApp(options: FakeAppOptions = {}): FakeApp {
  const keys = options.keys ?? DEFAULT_KEYS;
  const tenants = new Tenants(keys);
  const clock = new Clock({ ...(options.now !== undefined && { now: options.now }), frozen: options.frozen ?? false });
  const ids = new IdGenerator(options.idSeed ?? 1);
  const faults = options.faults ?? [];
  const handlers = withFaults(faults);
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  const onInternalError = options.onInternalError ?? ((error) => console.error('[fake] internal error:', error));

  function replaySeed(): void {
    for (const call of options.seed ?? []) {
      const key = call.key ?? keys[0]!.key;
      const store = tenants.storeFor(key);
      if (store === undefined) throw new Error(`seed call ${call.operation} names an unknown key`);
      const ctx: DomainContext = { store, clock, ids };
      const input = validatedSeedInput(call);
      (handlers[call.operation] as (ctx: DomainContext, input: unknown) => unknown)(ctx, input);
    }
  }

  function reset(): void {
    tenants.clear();
    ids.restart();
    replaySeed();
  }

  const router = createRouter({ tenants, clock, ids, handlers, faults, validateResponses: options.validateResponses ?? false });
  const control = createControlPlane({ tenants, clock, ids, bodyLimit, faultRules: faults.map((fault) => fault.rule), reset });
  const internalError = (error: unknown): Reply => {
    onInternalError(error);
    return errorReply('internal_error', 'Internal error in the fake; this is a bug, please report it', 'sandbox');
  };

  async function fetch(incoming: Request): Promise<Response> {
    try {
      const request = faults.reduce((current, fault) => (fault.request ? fault.request(current) : current), incoming);
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
  replaySeed();
  return { fetch, reset, clock, keys, faults, bodyLimit, reply: needsWebRequests ? undefined : reply };
}

/** A seed call's body, validated like a request (defaults applied); a bad seed fails loudly at start. */
function validatedSeedInput(call: SeedCall): unknown {
  const parsed = operations[call.operation].request.safeParse(call.body);
  if (!parsed.success) throw new Error(`seed call ${call.operation} has an invalid body: ${parsed.error.message}`);
  return parsed.data;
}
