/**
 * What the fake does to whole tenants: bring them to their start state (the seed replayed), reset,
 * create and delete organisations, export and import snapshots. The app and its control plane both
 * act through these operations; the app builds them and mounts the control plane with them.
 */
import { type OperationName, operations } from '../spec/operations.ts';
import type { OperationHandlers } from './domain/context.ts';
import { canonical, parseSnapshot, restoreTenant, StateFileError, type StateSnapshot, snapshotTenant } from './state.ts';
import type { ApiKeyConfig, CreatedTenant, Tenant, Tenants } from './tenants.ts';

/** One call replayed into the fresh state at start and on every reset. */
export interface SeedCall {
  readonly operation: OperationName;
  readonly body: unknown;
  /** The key (tenant) to run it as; the first configured key by default. */
  readonly key?: string;
}

/** The start state: calls to replay, or a state snapshot to restore (a state file). */
export type Seed = readonly SeedCall[] | StateSnapshot;

export interface TenantStates {
  /** Every tenant back to its start state: empty stores (seed replayed), clocks and IDs back where they started. */
  readonly reset: () => void;
  /** The tenant of `key` back to its start state; the others are untouched. */
  readonly resetTenant: (key: string) => void;
  readonly createTenant: () => CreatedTenant;
  /** Deletes a created tenant's organisation (its keys stop working). */
  readonly deleteTenant: (org: string) => void;
  /** A snapshot of the tenant `key` opens, or of every tenant. */
  readonly exportState: (key?: string) => StateSnapshot;
  /** Puts each tenant the snapshot holds into its state; the snapshot is validated first (StateFileError). */
  readonly importState: (snapshot: unknown) => void;
}

export interface TenantStatesOptions {
  readonly tenants: Tenants;
  readonly configuredKeys: readonly ApiKeyConfig[];
  /** The handlers seed calls run through (faults and client compatibility included). */
  readonly handlers: OperationHandlers;
  readonly seed?: Seed | undefined;
}

/** The tenant a key opens; a key the fake does not accept is a caller's bug. */
export function openOrFail(tenants: Tenants, key: string): Tenant {
  const tenant = tenants.open(key);
  if (tenant === undefined) throw new Error(`no tenant has the key ${key.slice(0, 15)}…`);
  return tenant;
}

/** The tenant operations of one fake. Building them checks the seed (a bad seed fails loudly at start). */
export function tenantStates(options: TenantStatesOptions): TenantStates {
  const { tenants, configuredKeys, handlers } = options;
  const seed = options.seed === undefined || Array.isArray(options.seed) ? undefined : parseSnapshot(options.seed);
  const seedCalls = Array.isArray(options.seed) ? (options.seed as readonly SeedCall[]) : [];

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

  return {
    reset: startAll,
    resetTenant: (key) => startTenant(openOrFail(tenants, key)),
    createTenant: () => tenants.createOrganisation(),
    deleteTenant: (org) => {
      if (!tenants.deleteOrganisation(org)) throw new Error(`${org} is not a created tenant`);
    },
    exportState: (key) => {
      const chosen = key === undefined ? tenants.all() : [openOrFail(tenants, key)];
      return canonical({ format: 'besi-fake-state', version: 1, tenants: chosen.map(snapshotTenant) }) as StateSnapshot;
    },
    importState: (value) => {
      const snapshot = parseSnapshot(value);
      // Every tenant is looked up before any is touched: a snapshot naming an unknown tenant changes nothing.
      const targets = snapshot.tenants.map((saved) => [tenantOfSnapshot(saved.org, saved.env), saved] as const);
      for (const [tenant, saved] of targets) restoreTenant(tenant, saved);
    },
  };
}

/** A seed call's body, validated like a request (defaults applied); a bad seed fails loudly at start. */
function validatedSeedInput(call: SeedCall): unknown {
  const parsed = operations[call.operation].request.safeParse(call.body);
  if (!parsed.success) throw new Error(`seed call ${call.operation} has an invalid body: ${parsed.error.message}`);
  return parsed.data;
}
