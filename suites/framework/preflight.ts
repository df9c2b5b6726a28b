/**
 * Preflight: before any scenario, one documented read (`licenses.list` of a customer that does not
 * exist) tells whether the harness can run at all, so a wrong key, a wrong version or a dead target
 * ends in one paragraph instead of hundreds of failed rules. The conformance CLI exits 2 on a
 * failed preflight; the suite's global setup refuses to start.
 *
 * - `config`: a target without a key, or one that answers with something other than JSON (a web page);
 * - `live-key`: an `am_sk_live_…` key for a run that changes data, unless allowed (DESIGN.md decision 9);
 * - `unreachable`: no answer (connection refused, DNS, timeout) or a 5xx;
 * - `key-refused`: 401 or 403;
 * - `version-refused`: a 4xx other than 404 whose error names the version.
 * Any other answer (200, 404 customer_not_found, another 4xx) shows the key and version were taken.
 * One attempt, bounded by `timeoutMs` (default the smaller of the configuration's timeout and 10 s),
 * so even a black-holed host ends well within 30 s.
 */
import { conventionBreachOf, type ConventionBreach } from './checks.ts';
import type { RawRequest, RawResult } from './client.ts';
import type { ConformanceConfig } from './config.ts';
import { checkLiveKey, ENV_VARS } from './config.ts';
import { EvidenceLog } from './evidence.ts';
import { Transport, TransportError } from './http.ts';

export type PreflightFailure = 'config' | 'unreachable' | 'key-refused' | 'version-refused' | 'live-key';
export type PreflightResult = { readonly ok: true } | { readonly ok: false; readonly kind: PreflightFailure; readonly message: string };

export interface PreflightOptions {
  /** Run with a live key although the profile changes data. */
  readonly allowLiveKey?: boolean;
  readonly timeoutMs?: number;
}

export const PREFLIGHT_MAX_TIMEOUT_MS = 10_000;
const PROBE_PATH = '/v1/licenses.list';
const PROBE_BODY = JSON.stringify({ customer_id: 'conf_preflight_probe' });

export async function preflight(
  config: Pick<ConformanceConfig, 'baseUrl' | 'apiKey' | 'apiVersion' | 'timeoutMs' | 'profile' | 'allowLive' | 'maxBodyBytes'>,
  options: PreflightOptions = {},
): Promise<PreflightResult> {
  const { baseUrl, apiKey, apiVersion } = config;
  // No target: the run boots the fake, which has its own keys.
  if (baseUrl === undefined) return { ok: true };
  if (apiKey === undefined) {
    return fail('config', `No API key for ${baseUrl}. Set ${ENV_VARS.apiKey} to a secret key of the target (am_sk_test_… for a sandbox), or unset ${ENV_VARS.baseUrl} to run against the embedded fake.`);
  }
  const live = checkLiveKey({ ...config, allowLive: config.allowLive || options.allowLiveKey === true });
  if (!live.ok) return fail(live.kind, live.message);
  const timeoutMs = options.timeoutMs ?? Math.min(config.timeoutMs, PREFLIGHT_MAX_TIMEOUT_MS);
  // The suite's own transport: its timeout survives garbage collection, a huge or endless body is cut
  // at the cap, and what the target echoes of the key is redacted.
  const evidence = new EvidenceLog({ secrets: [apiKey] });
  const transport = new Transport({ baseUrl, apiKey, apiVersion, timeoutMs, retry: false, maxBodyBytes: config.maxBodyBytes, evidence });
  let status: number;
  let text: string;
  let isJson: boolean;
  try {
    ({ value: { status, text, isJson } } = await transport.send({ label: 'preflight', path: PROBE_PATH, body: PROBE_BODY }, (res) => ({ value: res })));
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    const why = error.kind === 'timeout' ? `no answer within ${timeoutMs} ms` : (error.exchange.error ?? error.kind);
    return fail('unreachable', `The target ${baseUrl} cannot be reached (${why}). Check ${ENV_VARS.baseUrl} (scheme, host, port), that the service is running, and that this machine can connect to it.`);
  } finally {
    await transport.close();
  }
  const said = evidence.redact(describe(text));
  if (status >= 500) {
    return fail('unreachable', `The target ${baseUrl} answered ${status} to a plain read (POST ${PROBE_PATH})${said}. It is up but failing; fix the service, then run again.`);
  }
  if (status === 401 || status === 403) {
    return fail('key-refused', `The target ${baseUrl} refused the API key (${status}${said}). Set ${ENV_VARS.apiKey} to a valid secret key of this target and environment (am_sk_test_… for a sandbox).`);
  }
  if (status >= 400 && status !== 404 && /version/i.test(text)) {
    return fail(
      'version-refused',
      `The target ${baseUrl} refused API version ${apiVersion} (${status}${said}). Set ${ENV_VARS.apiVersion} to a version the target speaks (for example 2.3.0 for a deployment of the reference).`,
    );
  }
  if (!isJson) {
    return fail(
      'config',
      `The target ${baseUrl} answered a plain read (POST ${PROBE_PATH}) with ${status} and a body that is not JSON${said}: ${ENV_VARS.baseUrl} does not seem to point at the API. Check its host and path (the suite appends /v1/<operation> to it).`,
    );
  }
  return { ok: true };
}

function fail(kind: PreflightFailure, message: string): PreflightResult {
  return { ok: false, kind, message: `Preflight failed (${kind}): ${message}` };
}

/** `: "<message>"` from an error body, or the start of the text; never the request (the key stays out). */
function describe(text: string): string {
  let message: unknown = text;
  try {
    message = (JSON.parse(text) as { message?: unknown }).message ?? text;
  } catch {
    // not JSON: the text itself
  }
  const shown = String(message).slice(0, 160);
  return shown === '' ? '' : `: ${JSON.stringify(shown)}`;
}

/**
 * The preflight read again, through the run's client, and the same read with an empty body: a
 * convention the whole target breaks (checks.ts `conventionBreachOf`). Asked once per target, when a
 * rule first FAILs; an answer that says nothing (no answer, a 5xx) shows no breach.
 */
export async function probeConventions(client: { raw(request: RawRequest): Promise<RawResult> }, apiVersion: string): Promise<ConventionBreach | undefined> {
  try {
    const named = await client.raw({ path: PROBE_PATH, body: PROBE_BODY });
    const empty = await client.raw({ path: PROBE_PATH, body: '{}' });
    return conventionBreachOf(named, empty, apiVersion);
  } catch (error) {
    if (error instanceof TransportError) return undefined;
    throw error;
  }
}
