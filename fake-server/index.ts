/**
 * The fake in-process: `createFakeServer(options)` starts it on a loopback port (0 = any free port)
 * and returns its URL, an in-process `fetch` that skips the socket, `reset`, `close`, the clock and
 * the keys.
 */
import { createFakeApp, type FakeAppOptions } from './app.ts';
import type { Clock } from './clock.ts';
import { faultsFor } from './faults/index.ts';
import { serve } from './http/node-adapter.ts';
import { type ApiKeyConfig, otherTenantKey } from './tenants.ts';

export interface FakeServerOptions extends Omit<FakeAppOptions, 'faults'> {
  readonly port?: number;
  readonly host?: string;
  /** Rule IDs to break on purpose (see fake-server/faults/). */
  readonly faults?: readonly string[];
}

export interface FakeServer {
  readonly url: string;
  readonly fetch: (request: Request) => Promise<Response>;
  readonly reset: () => void;
  readonly close: () => Promise<void>;
  readonly clock: Clock;
  readonly keys: readonly ApiKeyConfig[];
  /** The first key: the sandbox key of the default organisation unless keys were given. */
  readonly apiKey: string;
  /** A key of another tenant than `apiKey` (by default the live key of the same organisation), if one is configured. */
  readonly otherTenantApiKey: string | undefined;
}

export async function createFakeServer(options: FakeServerOptions = {}): Promise<FakeServer> {
  const app = createFakeApp({ ...options, faults: faultsFor(options.faults ?? []) });
  const served = await serve(app, { ...(options.port !== undefined && { port: options.port }), ...(options.host !== undefined && { host: options.host }) });
  const apiKey = app.keys[0]!.key;
  return { url: served.url, fetch: app.fetch, reset: app.reset, close: served.close, clock: app.clock, keys: app.keys, apiKey, otherTenantApiKey: otherTenantKey(app.keys, apiKey) };
}

export { createFakeApp, type FakeApp, type FakeAppOptions, type SeedCall } from './app.ts';
export { DEFAULT_KEYS, type ApiKeyConfig } from './tenants.ts';
