/**
 * How an exploration reaches its target, one program at a time. Where the target has the fake's
 * control plane, each program gets a tenant of its own (`tenants.create`), frozen at its calendar
 * start: nothing else is there, the clock can be moved, and deleting the tenant leaves nothing behind.
 * Elsewhere (a deployment) programs share the run's tenant: their IDs are namespaced, answers are cut
 * down to what the program made, the clock runs on, and timestamps are compared within a tolerance.
 */
import { ErrorBody } from '../../spec/common.ts';
import type { operations } from '../../spec/operations.ts';
import { createFakeApp, type FakeApp } from '../../fake-server/app.ts';
import type { Fault } from '../../fake-server/faults/fault.ts';
import { otherTenantKey } from '../../fake-server/tenants.ts';
import type { ConventionBreach } from '../framework/checks.ts';
import type { RawRequest, RawResult } from '../framework/client.ts';
import { ControlClient } from '../framework/control-client.ts';
import { openOwnTenant } from '../framework/own-tenant.ts';
import { probeConventions } from '../framework/preflight.ts';
import { EvidenceLog } from '../framework/evidence.ts';
import type { Namespace } from '../framework/namespace.ts';
import { recordCreated, type Target } from '../framework/target.ts';
import { startAfter, type CalendarStart } from './calendar.ts';
import type { Abilities } from './command.ts';
import { appSide, bearer, clientSide, type Side } from './sides.ts';

export interface ProgramTarget {
  readonly side: Side;
  /** The key this program uses on the target (its own tenant's, or the run's). */
  readonly key: string;
  /** A key of another tenant, for the isolation reads. */
  readonly otherKey: string | undefined;
  /** The target's clock when the program starts. */
  readonly start: number;
  /** The target's clock is frozen at `start` and moves only with the program: timestamps compare exactly. */
  readonly exact: boolean;
  /** The program has the tenant to itself. */
  readonly isolated: boolean;
  /** The environment the program's own key opens: `live` where it runs in its organisation's live environment (a tenant of its own), else the sandbox. */
  readonly environment?: 'live';
  /** The evidence of this program's calls to the target (redacted). */
  readonly evidence: EvidenceLog | undefined;
  close(): Promise<void>;
}

export interface ExploreTarget {
  readonly description: string;
  readonly apiVersion: string;
  readonly abilities: Abilities;
  /** The run's namespace; each program takes a scope of it. */
  readonly ns: Namespace;
  /** Every key in play, to scrub from every output. */
  readonly secrets: () => readonly string[];
  /** A program's tenant (and clock); `environment`: the program's own key is its organisation's live one, where it has a tenant of its own. */
  open(start: CalendarStart, environment?: 'live'): Promise<ProgramTarget>;
  /** Told of every call the target answered 200 (the cleanup ledger listens). */
  readonly created?: (operation: string, request: unknown) => void;
  /**
   * A convention the whole target breaks (its API version refused, JSON bodies not read), probed when
   * a finding is made: every difference then rests on that convention, whose rule the finding FAILs.
   */
  readonly conventions: () => Promise<ConventionBreach | undefined>;
}

/** The reference model of one program: a fresh fake, its clock where the target's is. */
export function modelFor(program: Pick<ProgramTarget, 'start' | 'exact' | 'environment'>, apiVersion: string, faults: readonly Fault[] = []): { app: FakeApp; side: Side; key: string; otherKey: string | undefined } {
  const app = createFakeApp({ now: program.start, frozen: program.exact, faults });
  // The model's organisation has a key of each environment: the program's environment's is its own.
  const key = (program.environment === 'live' ? app.keys.find((config) => config.key.startsWith('am_sk_live_')) : undefined)?.key ?? app.keys[0]!.key;
  return { app, side: appSide(app, key, apiVersion), key, otherKey: otherTenantKey(app.keys, key) };
}

interface TenantKeys {
  readonly sandbox_key: string;
  readonly live_key: string;
}

/** A fake in this process as the target (the self-check and the fault sweep): every program in a tenant of its own. */
export function inProcessTarget(app: FakeApp, ns: Namespace, apiVersion = '2.4.0'): ExploreTarget {
  const main = appSide(app, app.keys[0]!.key, apiVersion);
  const keys: string[] = [];
  return {
    description: 'the fake, in process',
    apiVersion,
    abilities: { controlPlane: true, exclusiveTenant: true, otherTenant: true, readOnly: false, multiCurrency: true, paidAttach: true },
    ns,
    secrets: () => keys,
    conventions: () => probeConventions({ raw: (request) => rawCall(app, app.keys[0]!.key, apiVersion, request) }, apiVersion),
    async open(kind, environment) {
      const tenant = (await main.control('tenants.create', {})).body as TenantKeys;
      keys.push(tenant.sandbox_key, tenant.live_key);
      const side = appSide(app, ownKey(tenant, environment), apiVersion);
      return ownTenant(tenant, side, async (name, body, key) => (await side.control(name, body, key ? { headers: bearer(key) } : {})).body, kind, undefined, environment);
    },
  };
}

/**
 * A fake (or a wrapper of one) in this process reached as a deployment is: every program in the one
 * tenant of `key`, no control plane, the clock running; for the tests of the oracle on a shared
 * tenant (what others made there must not count) and against the reference-like target.
 */
export function sharedTenantTarget(app: Pick<FakeApp, 'fetch'>, key: string, ns: Namespace, options: { readonly apiVersion?: string; readonly abilities?: Partial<Abilities>; readonly wrap?: (side: Side) => Side } = {}): ExploreTarget {
  const apiVersion = options.apiVersion ?? '2.4.0';
  const side = (options.wrap ?? ((s: Side) => s))(appSide(app, key, apiVersion));
  return {
    description: 'a fake in process, one shared tenant',
    apiVersion,
    abilities: { controlPlane: false, exclusiveTenant: false, otherTenant: false, readOnly: false, multiCurrency: true, paidAttach: true, ...options.abilities },
    ns,
    secrets: () => [key],
    conventions: async () => undefined,
    open: async () => ({ side, key, otherKey: undefined, start: Date.now(), exact: false, isolated: false, evidence: undefined, close: async () => undefined }),
  };
}

/** The key a program in `environment` sends as its own. */
const ownKey = (tenant: TenantKeys, environment: 'live' | undefined) => (environment === 'live' ? tenant.live_key : tenant.sandbox_key);

/**
 * A program in a tenant of its own: its clock frozen at the next date of the calendar kind (the
 * clock of the organisation's other environment too, which the program may write in as well); the
 * tenant deleted at the end. `side` and `control` send the program's own key (its environment's);
 * `control` takes another as its third argument.
 */
async function ownTenant(
  tenant: TenantKeys,
  side: Side,
  control: (name: 'clock.get' | 'clock.set' | 'tenants.delete', body: unknown, key?: string) => Promise<unknown>,
  kind: CalendarStart,
  evidence: EvidenceLog | undefined,
  environment: 'live' | undefined,
): Promise<ProgramTarget> {
  const { now } = (await control('clock.get', {})) as { now: number };
  const start = startAfter(kind, now);
  const otherKey = environment === 'live' ? tenant.sandbox_key : tenant.live_key;
  await control('clock.set', { now: start, frozen: true });
  await control('clock.set', { now: start, frozen: true }, otherKey);
  return { side, key: ownKey(tenant, environment), otherKey, start, exact: true, isolated: true, evidence, ...(environment ? { environment } : {}), close: async () => void (await control('tenants.delete', {})) };
}

/** A raw call of the in-process fake, as the convention probe makes it (preflight.ts). */
async function rawCall(app: FakeApp, key: string, apiVersion: string, request: RawRequest): Promise<RawResult> {
  const response = await app.fetch(new Request(`http://target.invalid${request.path}`, { method: request.method ?? 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-api-version': apiVersion }, ...(request.body === undefined ? {} : { body: request.body }) }));
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the text itself
  }
  return { status: response.status, headers: Object.fromEntries(response.headers), body, text, exchange: undefined as unknown as RawResult['exchange'] };
}

/**
 * A conformance target over HTTP: the embedded fake of a run, or a deployment by URL. `beside`: the
 * run's scenarios use the target at the same time, so in a shared tenant nothing tenant-wide (an
 * auto-enable plan) is made, whatever the profile says of the tenant.
 */
export function httpTarget(target: Target<typeof operations, typeof ErrorBody>, options: { readonly ns: Namespace; readonly timeToleranceMs?: number; readonly beside?: boolean }): ExploreTarget {
  const readOnly = target.info.readOnly || !target.capabilities.has('mutation');
  const controlPlane = target.control !== undefined && !readOnly;
  const extraKeys: string[] = [];
  const secrets = () => [target.apiKey, ...(target.otherTenantApiKey ? [target.otherTenantApiKey] : []), ...extraKeys];
  const logFor = () => new EvidenceLog({ secrets: secrets(), capacity: 400 });
  const ledger = target.ledger.forScenario('explore');
  return {
    description: target.info.kind === 'fake' ? 'the embedded fake' : target.info.baseUrl,
    apiVersion: target.info.apiVersion,
    abilities: {
      controlPlane,
      // A tenant of its own per program, or a profile that says the run has the tenant to itself (and no scenario uses it meanwhile).
      exclusiveTenant: controlPlane || (target.capabilities.has('exclusive-tenant') && options.beside !== true),
      otherTenant: controlPlane || target.otherTenantApiKey !== undefined,
      readOnly,
      multiCurrency: target.capabilities.has('multi-currency'),
      paidAttach: target.capabilities.has('paid-attach'),
    },
    ns: options.ns,
    secrets,
    conventions: async () => target.conventionBreach?.(),
    async open(kind, environment) {
      if (controlPlane) {
        // As a scenario's own organisation is made (framework/own-tenant.ts): the answer with its keys recorded in no log kept.
        const own = await openOwnTenant(target.control!);
        extraKeys.push(...own.secrets);
        const tenant: TenantKeys = { sandbox_key: own.sandboxKey, live_key: own.liveKey };
        const evidence = logFor();
        const headers = bearer(ownKey(tenant, environment));
        const control = new ControlClient(target.client.transport.with({ evidence }));
        const side = clientSide(target.client.with({ evidence }), control, headers);
        return ownTenant(tenant, side, (name, body, key) => control.call(name, body as never, { headers: key ? bearer(key) : headers }), kind, evidence, environment);
      }
      const evidence = logFor();
      return {
        side: clientSide(target.client.with({ evidence, ...(target.info.readOnly ? { readOnly: true } : {}) }), undefined),
        key: target.apiKey,
        otherKey: target.otherTenantApiKey,
        start: Date.now(),
        exact: false,
        isolated: false,
        evidence,
        close: async () => undefined,
      };
    },
    // In a shared tenant what a program creates stays: the ledger undoes what the API allows and lists the rest.
    created: controlPlane ? undefined : (operation, request) => recordCreated(target.creates, target.ns, ledger, operation, request),
  };
}
