/**
 * A tenant of its own: a fresh organisation the fake's control plane makes (`tenants.create`) and
 * deletes (`tenants.delete`), with its own keys, data and clocks. A scenario that would run alone
 * for a tenant-wide capability runs in one beside the others (scenario.ts); so does each exploration
 * program (explore/targets.ts).
 *
 * Its keys are secrets. The answer that carries them is recorded in no evidence log that is kept (a
 * log of its own, dropped), and whoever sends them registers them for redaction (`secrets`, e.g.
 * `EvidenceLog.child(secrets)`).
 */
import type { ControlClient } from './control-client.ts';
import { EvidenceLog } from './evidence.ts';
import type { HeaderOverrides } from './http.ts';

export interface OwnTenant {
  readonly org: string;
  /** The key of the organisation's sandbox: the tenant a scenario works in. */
  readonly sandboxKey: string;
  /** The key of its live environment, another tenant of the same organisation. */
  readonly liveKey: string;
  /** Both keys, to scrub from every output. */
  readonly secrets: readonly string[];
  /** Header overrides that send `key` (default: the sandbox key) instead of the run's. */
  headers(key?: string): HeaderOverrides;
  /** Deletes the organisation: its data and clocks go, its keys stop working. Once, whoever asks. */
  close(): Promise<void>;
}

/** Bearer authorization with `key`. */
export function bearer(key: string): HeaderOverrides {
  return { authorization: `Bearer ${key}` };
}

/** Makes a fresh organisation on the target of `control`; throws as the control client does (ControlPlaneError, TransportError). */
export async function openOwnTenant(control: ControlClient, options: { readonly timeoutMs?: number; readonly retry?: false } = {}): Promise<OwnTenant> {
  // Recorded nowhere kept: the answer holds the keys, which no log knows yet.
  const unrecorded = control.with({ evidence: new EvidenceLog({ capacity: 0 }) });
  const made = await unrecorded.call('tenants.create', {}, options);
  const sandboxKey = made.sandbox_key;
  let closing: Promise<void> | undefined;
  return {
    org: made.org,
    sandboxKey,
    liveKey: made.live_key,
    secrets: [made.sandbox_key, made.live_key],
    headers: (key = sandboxKey) => bearer(key),
    close: () => (closing ??= unrecorded.call('tenants.delete', {}, { ...options, headers: bearer(sandboxKey) }).then(() => undefined)),
  };
}

/** Whether the target makes and deletes an organisation: undefined when it does, else why not (one clause). */
export async function probeOwnTenant(control: ControlClient, timeoutMs: number): Promise<string | undefined> {
  try {
    const tenant = await openOwnTenant(control, { timeoutMs, retry: false });
    await tenant.close();
    return undefined;
  } catch (error) {
    return `tenants.create or tenants.delete failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}
