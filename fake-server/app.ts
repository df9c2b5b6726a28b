/**
 * The fake as one `(Request) => Promise<Response>` handler, with no socket: routing to the /v1
 * router or the control plane, faults applied, seed replayed on reset. Every failure becomes a JSON
 * error body; nothing a client sends can crash it.
 */
import { type OperationName, operations } from '../spec/operations.ts';
import type { Clock } from './clock.ts';
import { type ClientCompat, compatAdapter } from './client-compat.ts';
import { createControlPlane, isControlPath } from './control-plane.ts';
import type { OperationHandlers } from './domain/context.ts';
import { handlers as realHandlers } from './domain/handlers.ts';
import type { Fault, HandlerOverrides } from './faults/fault.ts';
import { errorResponse } from './http/json.ts';
import { createRouter } from './router.ts';
import { canonical, parseSnapshot, restoreTenant, StateFileError, type StateSnapshot, snapshotTenant } from './state.ts';
import { type ApiKeyConfig, DEFAULT_KEYS, type Tenant, Tenants } from './tenants.ts';

/** One call replayed into the fresh state at start and on every reset. */
export interface SeedCall {
  readonly operation: OperationName;
  readonly body: unknown;
  /** The key (tenant) to run it as; the first configured key by default. */
  readonly key?: string;
}

/** The start state: calls to replay, or a state snapshot to restore (a state file). */
export type Seed = readonly SeedCall[] | StateSnapshot;

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

/** A tenant made for one test file: an organisation of its own, with a sandbox key and a live key. */
export interface CreatedTenant {
  readonly org: string;
  readonly sandboxKey: string;
  readonly liveKey: string;
}

export interface FakeApp {
  readonly fetch: (request: Request) => Promise<Response>;
  /** Every tenant back to its start state: empty stores (seed replayed), clocks and IDs back where they started. */
  readonly reset: () => void;
  /** The tenant of `key` back to its start state; the others are untouched. */
  readonly resetTenant: (key: string) => void;
  /** The clock of the first configured key's tenant. */
  readonly clock: Clock;
  /** The clock of the tenant `key` opens. */
  readonly clockOf: (key: string) => Clock;
  /** The configured keys and those of created tenants. */
  readonly keys: readonly ApiKeyConfig[];
  readonly faults: readonly Fault[];
  readonly createTenant: () => CreatedTenant;
  /** Deletes a created tenant's organisation (its keys stop working). */
  readonly deleteTenant: (org: string) => void;
  /** A snapshot of the tenant `key` opens, or of every tenant. */
  readonly exportState: (key?: string) => StateSnapshot;
  /** Puts each tenant the snapshot holds into its state; the snapshot is validated first (StateFileError). */
  readonly importState: (snapshot: unknown) => void;
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
  const seed = options.seed === undefined || Array.isArray(options.seed) ? undefined : parseSnapshot(options.seed);
  const seedCalls = Array.isArray(options.seed) ? (options.seed as readonly SeedCall[]) : [];

  function openOrFail(key: string): Tenant {
    const tenant = tenants.open(key);
    if (tenant === undefined) throw new Error(`no tenant has the key ${key.slice(0, 15)}…`);
    return tenant;
  }

  /** Brings a tenant to its start state: the seed snapshot's entry for it, or empty with the seed calls made as its keys replayed. */
  function startTenant(tenant: Tenant): void {
    tenant.reset();
    const saved = seed?.tenants.find((entry) => entry.org === tenant.org && entry.env === tenant.env);
    if (saved !== undefined) restoreTenant(tenant, saved);
    for (const call of seedCalls) {
      if (tenants.open(call.key ?? configuredKeys[0]!.key) !== tenant) continue;
      (handlers[call.operation] as (ctx: Tenant, input: unknown) => unknown)(tenant, validatedSeedInput(call));
    }
  }

  function startAll(): void {
    for (const call of seedCalls) if (tenants.open(call.key ?? configuredKeys[0]!.key) === undefined) throw new Error(`seed call ${call.operation} names an unknown key`);
    for (const saved of seed?.tenants ?? []) tenantOfSnapshot(saved.org, saved.env);
    for (const tenant of tenants.all()) startTenant(tenant);
  }

  function tenantOfSnapshot(org: string, env: string): Tenant {
    const key = tenants.keys.find((config) => config.org === org && tenants.open(config.key)!.env === env)?.key;
    if (key === undefined) throw new StateFileError(`the snapshot holds tenant ${org} (${env}), but no key of this fake opens it; configure a key for it`);
    return tenants.open(key)!;
  }

  function exportState(key?: string): StateSnapshot {
    const chosen = key === undefined ? tenants.all() : [openOrFail(key)];
    return canonical({ format: 'besi-fake-state', version: 1, tenants: chosen.map(snapshotTenant) }) as StateSnapshot;
  }

  function importState(value: unknown): void {
    const snapshot = parseSnapshot(value);
    // Every tenant is looked up before any is touched: a snapshot naming an unknown tenant changes nothing.
    const targets = snapshot.tenants.map((saved) => [tenantOfSnapshot(saved.org, saved.env), saved] as const);
    for (const [tenant, saved] of targets) restoreTenant(tenant, saved);
  }

  const app = {
    reset: startAll,
    resetTenant: (key: string) => startTenant(openOrFail(key)),
    createTenant: () => tenants.createOrganisation(),
    deleteTenant: (org: string) => {
      if (!tenants.deleteOrganisation(org)) throw new Error(`${org} is not a created tenant`);
    },
    exportState,
    importState,
  };

  const router = createRouter({ tenants, handlers, faults, bodyLimit, validateResponses: options.validateResponses ?? false, ...(compat && { requestSchemas: compat.requestSchemas }) });
  const control = createControlPlane({ tenants, bodyLimit, faultRules: faults.map((fault) => fault.rule), app, ...(options.adminKey !== undefined && { adminKey: options.adminKey }) });

  async function fetch(incoming: Request): Promise<Response> {
    try {
      const request = faults.reduce((current, fault) => (fault.request ? fault.request(current) : current), incoming);
      if (isControlPath(new URL(request.url).pathname)) return await control(request);
      let response = await router(request);
      for (const fault of faults) if (fault.response) response = await fault.response(response, request);
      return response;
    } catch (error) {
      onInternalError(error);
      return errorResponse('internal_error', 'Internal error in the fake; this is a bug, please report it', 'sandbox');
    }
  }

  startAll();
  return {
    ...app,
    fetch,
    clock: openOrFail(configuredKeys[0]!.key).clock,
    clockOf: (key) => openOrFail(key).clock,
    get keys() {
      return tenants.keys;
    },
    faults,
  };
}

/** A seed call's body, validated like a request (defaults applied); a bad seed fails loudly at start. */
function validatedSeedInput(call: SeedCall): unknown {
  const parsed = operations[call.operation].request.safeParse(call.body);
  if (!parsed.success) throw new Error(`seed call ${call.operation} has an invalid body: ${parsed.error.message}`);
  return parsed.data;
}
