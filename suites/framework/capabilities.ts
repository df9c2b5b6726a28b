/**
 * What a target lets the suite do. A scenario declares what it needs; when the target lacks it, the
 * scenario is skipped with the reason, never passed silently.
 * - `control-plane`: the profile grants it and the target answers `POST /_fake/health` (probed once).
 * - `mutation`: the profile is not read-only.
 * - `paid-attach`: the profile allows paid plans, and a probe (the target's `probes['paid-attach']`)
 *   finds that attaching a paid plan to a probe customer takes effect at once (a checkout URL: no).
 * - `multi-currency`: a probe finds that a plan priced in several currencies is accepted (the
 *   reference needs an organisation setting the API cannot change). Never granted read-only.
 * - `other-tenant`: the run has a secret key of another tenant of the target (OTHER_TENANT_API_KEY,
 *   or the second key of the fake the run booted).
 * - `exclusive-tenant`: the profile says the run has the tenant to itself, so tenant-wide side effects
 *   (an auto-enable plan attaches to every customer created meanwhile) cannot reach anyone else.
 * - `own-tenant`: the control plane makes a fresh organisation, with its own keys, data and clocks,
 *   and deletes it (`tenants.create`, `tenants.delete`; probed once, both). A scenario that would
 *   run alone for a tenant-wide capability runs in one of its own instead, beside the others
 *   (schedule.ts `placement`). Never declared by a scenario; never read-only.
 * - `fixture:<name>`: the profile supplies that pre-provisioned record.
 * A need is one capability, or a list of alternatives of which any one suffices (for example, the
 * control plane to force a past-due subscription, or a fixture that already is one).
 */
import type { ConformanceConfig, FixtureName } from './config.ts';
import { ControlClient } from './control-client.ts';
import type { Transport } from './http.ts';
import { probeOwnTenant } from './own-tenant.ts';

export type Capability = 'control-plane' | 'paid-attach' | 'multi-currency' | 'exclusive-tenant' | 'other-tenant' | 'mutation' | 'own-tenant' | `fixture:${FixtureName}`;

/** Capabilities decided by trying them on the target. */
export type ProbedCapability = 'paid-attach' | 'multi-currency';
/** Tries a capability on the target: undefined when it works, else why not (one clause). */
export type Probe = () => Promise<string | undefined>;
export type Need = Capability | readonly Capability[];

export interface CapabilitySet {
  readonly available: ReadonlySet<Capability>;
  /** Why each capability the target lacks is missing (one clause each). */
  readonly why: ReadonlyMap<Capability, string>;
  has(capability: Capability): boolean;
  /** Why a scenario with these needs cannot run on this target; undefined when it can. */
  missing(needs: readonly Need[]): string | undefined;
}

/** The longest the control-plane probe may take. */
export const PROBE_TIMEOUT_MS = 2_000;

export async function resolveCapabilities(
  config: Pick<ConformanceConfig, 'profile' | 'timeoutMs'> & { readonly otherTenantApiKey?: string | undefined },
  client: { readonly transport: Transport },
  probes: Partial<Record<ProbedCapability, Probe>> = {},
): Promise<CapabilitySet> {
  const { profile } = config;
  const available = new Set<Capability>();
  const why = new Map<Capability, string>();

  if (profile.readOnly) why.set('mutation', `to change data, but profile ${profile.name} is read-only`);
  else available.add('mutation');

  for (const [name, fixture] of Object.entries(profile.fixtures)) {
    if (fixture) available.add(`fixture:${name as FixtureName}`);
  }

  const probed = async (capability: ProbedCapability, what: string) => {
    const probe = probes[capability];
    if (profile.readOnly || probe === undefined) return why.set(capability, `${what}, which cannot be probed here (read-only profile, or no probe)`);
    const reason = await probe().catch((error: unknown) => `the probe failed: ${error instanceof Error ? error.message : String(error)}`);
    if (reason === undefined) available.add(capability);
    else why.set(capability, `${what}, which the target does not do (${reason})`);
  };
  if (profile.capabilities.includes('paid-attach')) await probed('paid-attach', 'paid plans to attach at once, without a checkout');
  else why.set('paid-attach', `paid plans to attach without a checkout, which profile ${profile.name} does not grant (add "paid-attach" to its capabilities if the target charges a default payment method)`);
  await probed('multi-currency', 'plans priced in several currencies');

  if (profile.capabilities.includes('exclusive-tenant')) available.add('exclusive-tenant');
  else why.set('exclusive-tenant', `the tenant to itself, which profile ${profile.name} does not grant (the scenario makes a plan auto-enable for a moment, which would reach customers other processes create meanwhile)`);

  if (config.otherTenantApiKey !== undefined) available.add('other-tenant');
  else why.set('other-tenant', 'a secret key of another tenant of the target (set OTHER_TENANT_API_KEY, e.g. the live key of the same organisation)');

  if (!profile.capabilities.includes('control-plane')) {
    why.set('control-plane', `the fake's control plane, which profile ${profile.name} does not grant`);
  } else {
    const probe = await new ControlClient(client.transport).probe(Math.min(PROBE_TIMEOUT_MS, config.timeoutMs));
    if (probe.available) available.add('control-plane');
    else why.set('control-plane', `the fake's control plane (${probe.reason})`);
  }

  const ownTenant = 'a fresh organisation for each scenario that changes what the whole tenant sees (the control plane\'s tenants.create and tenants.delete), so it runs beside the others';
  if (!available.has('control-plane')) why.set('own-tenant', `${ownTenant}, which needs the control plane`);
  else if (profile.readOnly) why.set('own-tenant', `${ownTenant}, which profile ${profile.name} does not allow (read-only)`);
  else {
    const reason = await probeOwnTenant(new ControlClient(client.transport), Math.min(PROBE_TIMEOUT_MS, config.timeoutMs));
    if (reason === undefined) available.add('own-tenant');
    else why.set('own-tenant', `${ownTenant}, which the target does not do (${reason})`);
  }

  return capabilitySet(available, why);
}

/** A capability set from what is available and why the rest is not (exported for tests and fixed targets). */
export function capabilitySet(available: ReadonlySet<Capability>, why: ReadonlyMap<Capability, string> = new Map()): CapabilitySet {
  const describe = (c: Capability) => why.get(c) ?? (c.startsWith('fixture:') ? `fixture ${c.slice('fixture:'.length)}` : c);
  return {
    available,
    why,
    has: (c) => available.has(c),
    missing(needs) {
      const reasons: string[] = [];
      const hints = new Set<string>();
      for (const need of needs) {
        const alternatives: readonly Capability[] = typeof need === 'string' ? [need] : need;
        if (alternatives.some((c) => available.has(c))) continue;
        reasons.push(`needs ${alternatives.map(describe).join(' or ')}`);
        for (const c of alternatives) {
          if (c.startsWith('fixture:')) hints.add(`supply fixture ${c.slice('fixture:'.length)} in the profile to run this against a deployment`);
        }
      }
      return reasons.length === 0 ? undefined : [...reasons, ...hints].join('; ');
    },
  };
}

/** A capability set as JSON, for the run's global setup to hand to every test file (probed once per run). */
export interface CapabilityReport {
  readonly available: readonly Capability[];
  readonly why: readonly (readonly [Capability, string])[];
}

export function reportCapabilities(set: CapabilitySet): CapabilityReport {
  return { available: [...set.available], why: [...set.why] };
}

export function capabilitiesFrom(report: CapabilityReport): CapabilitySet {
  return capabilitySet(new Set(report.available), new Map(report.why));
}
