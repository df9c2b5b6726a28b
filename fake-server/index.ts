/**
 * The fake in-process: `createFakeServer(options)` starts it on a loopback port (0 = any free port)
 * and returns its URL, an in-process `fetch` that skips the socket, `reset`, `close`, the clock and
 * the keys; `fake.tenant()` gives a test file a tenant of its own. `createFakeApp` is the same fake
 * without a socket.
 */
import { type CreatedTenant, createFakeApp, type FakeAppOptions } from './app.ts';
import type { Clock } from './clock.ts';
import { FakeControl } from './control-client.ts';
import { serve } from './http/node-adapter.ts';
import type { StateSnapshot } from './state.ts';
import { type ApiKeyConfig, otherTenantKey } from './tenants.ts';

/** One answered request, for a request log. */
export interface RequestLogEntry {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly ms: number;
}

export interface FakeServerOptions extends Omit<FakeAppOptions, 'faults'> {
  readonly port?: number;
  readonly host?: string;
  /** Rule IDs to break on purpose (see fake-server/faults/). */
  readonly faults?: readonly string[];
  /** Called once per answered request (the CLI's `--log`). */
  readonly onRequest?: (entry: RequestLogEntry) => void;
}

/** A tenant of its own for one test file: fresh data, its own clock, its own keys. */
export interface FakeTenant extends CreatedTenant {
  /** The tenant's sandbox key; pass it to the client under test. */
  readonly apiKey: string;
  /** The tenant's clock (its sandbox environment's). */
  readonly clock: Clock;
  /** The tenant's control plane, in-process (no socket). */
  readonly control: FakeControl;
  /** The tenant (sandbox) back to its start state, its clock back where it started. */
  readonly reset: () => void;
  readonly exportState: () => StateSnapshot;
  /** Deletes the tenant: its keys stop working. */
  readonly delete: () => void;
}

export interface FakeServer {
  readonly url: string;
  readonly fetch: (request: Request) => Promise<Response>;
  /** Every tenant back to its start state. */
  readonly reset: () => void;
  readonly close: () => Promise<void>;
  /** The clock of the first key's tenant; every tenant has its own. */
  readonly clock: Clock;
  readonly keys: readonly ApiKeyConfig[];
  /** The first key: the sandbox key of the default organisation unless keys were given. */
  readonly apiKey: string;
  /** A key of another tenant than `apiKey` (by default the live key of the same organisation), if one is configured. */
  readonly otherTenantApiKey: string | undefined;
  /** A fresh tenant (organisation) with its own keys and clock. */
  readonly tenant: () => FakeTenant;
  /** A snapshot of the tenant `key` opens, or of every tenant. */
  readonly exportState: (key?: string) => StateSnapshot;
  /** Puts each tenant a snapshot holds into its state (validated first). */
  readonly importState: (snapshot: unknown) => void;
  /** A control-plane client acting as `key` (by default `apiKey`). */
  readonly control: (key?: string) => FakeControl;
}

function logged(handler: (request: Request) => Promise<Response>, onRequest: (entry: RequestLogEntry) => void) {
  return async (request: Request): Promise<Response> => {
    const started = performance.now();
    const response = await handler(request);
    onRequest({ method: request.method, path: new URL(request.url).pathname, status: response.status, ms: Math.round((performance.now() - started) * 10) / 10 });
    return response;
  };
}

export async function createFakeServer(options: FakeServerOptions = {}): Promise<FakeServer> {
  // The fault catalogue is loaded only when a fault is asked for: it is most of the fake's code.
  const faults = options.faults?.length ? (await import('./faults/index.ts')).faultsFor(options.faults) : [];
  const app = createFakeApp({ ...options, faults });
  const handler = options.onRequest ? logged(app.fetch, options.onRequest) : app.fetch;
  const served = await serve(handler, { ...(options.port !== undefined && { port: options.port }), ...(options.host !== undefined && { host: options.host }) });
  const apiKey = app.keys[0]!.key;
  const control = (key = apiKey) => new FakeControl({ url: served.url, key, fetch: app.fetch });
  return {
    url: served.url,
    fetch: app.fetch,
    reset: app.reset,
    close: served.close,
    clock: app.clock,
    get keys() {
      return app.keys;
    },
    apiKey,
    otherTenantApiKey: otherTenantKey(app.keys, apiKey),
    tenant: () => {
      const created = app.createTenant();
      return {
        ...created,
        apiKey: created.sandboxKey,
        clock: app.clockOf(created.sandboxKey),
        control: control(created.sandboxKey),
        reset: () => app.resetTenant(created.sandboxKey),
        exportState: () => app.exportState(created.sandboxKey),
        delete: () => app.deleteTenant(created.org),
      };
    },
    exportState: app.exportState,
    importState: app.importState,
    control,
  };
}

export { createFakeApp, type CreatedTenant, type FakeApp, type FakeAppOptions, type Seed, type SeedCall } from './app.ts';
export { CLIENT_COMPAT_MODES, type ClientCompat } from './client-compat.ts';
export { Clock, type ClockState } from './clock.ts';
export { FakeControl, FakeControlError, type ControlCallRequest, type ControlCallResponse, type FakeControlOptions } from './control-client.ts';
export { parseSnapshot, StateFileError, StateSnapshot, type TenantSnapshot } from './state.ts';
export { DEFAULT_KEYS, type ApiKeyConfig } from './tenants.ts';
