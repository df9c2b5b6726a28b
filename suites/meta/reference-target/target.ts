/**
 * A reference-like target: the embedded fake, answering as the 2.3.0 reference implementation does
 * wherever the two differ (behaviours.ts). The suite's own tests run the conformance scenarios
 * against it in-process (verdicts.test.ts) to check their verdicts against the reference's
 * behaviour, and send it every recorded exchange (exchanges.test.ts); `serve.ts` puts it on a port
 * for manual runs (`npm run conformance` with BASE_URL).
 *
 * `latencyMs` holds every answer that long before it is given, as a slower deployment would (the
 * suite's time limits must follow it: suites/framework/pace.ts).
 *
 * It is not a second fake and not part of the package: it exists to hold the suite to what the
 * reference does, and every behaviour names the recorded exchange it comes from.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { createFakeApp, type FakeApp, type FakeAppOptions } from '../../../fake-server/app.ts';
import type { Servable } from '../../../fake-server/http/node-adapter.ts';
import { bearerOf } from '../../../fake-server/router.ts';
import { ErrorBody } from '../../../spec/common.ts';
import { operations } from '../../../spec/operations.ts';
import { testSeed } from '../../../fixtures/random.ts';
import { createTarget, loadConfig, runScenarios, type ScenarioOutcome } from '../../framework/index.ts';
import type { SCENARIOS } from '../../scenarios/index.ts';
import { type ConformanceTarget, LEDGER, PROBES } from '../../support.ts';
import { InProcessDispatcher } from '../in-process-fake.ts';
import { domainHooks, type HttpRequest, REFERENCE_BEHAVIOURS, type ReferenceBehaviour } from './behaviours.ts';

/** The API version a vendor run against the 2.3.0 reference sends (it refuses 2.4.0, exchange 147). */
export const REFERENCE_API_VERSION = '2.3.0';

export interface ReferenceLikeTarget extends Servable {
  /** The fake underneath (its keys, its clock). */
  readonly fake: FakeApp;
  /** The key a run uses. */
  readonly apiKey: string;
}

export interface ReferenceLikeOptions extends Omit<FakeAppOptions, 'faults' | 'clientCompat'> {
  /** Every answer is held this long before it is given (default 0). */
  readonly latencyMs?: number;
}

export function createReferenceLikeApp(options: ReferenceLikeOptions = {}, behaviours: readonly ReferenceBehaviour[] = REFERENCE_BEHAVIOURS): ReferenceLikeTarget {
  const { latencyMs = 0, ...fakeOptions } = options;
  const clientCompat = behaviours.find((b) => b.clientCompat !== undefined)?.clientCompat;
  const fake = createFakeApp({ ...fakeOptions, faults: domainHooks(behaviours), ...(clientCompat && { clientCompat }) });
  const http = behaviours.flatMap((b) => (b.http === undefined ? [] : [b.http]));
  // What the HTTP behaviours remember across requests (idempotency keys), for this app only.
  const remembered = new Set<string>();

  async function answer(request: Request): Promise<Response> {
    const key = bearerOf(request.headers.get('authorization'));
    const text = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.clone().text();
    const asked: HttpRequest = {
      method: request.method,
      path: new URL(request.url).pathname,
      header: (name) => request.headers.get(name),
      keyAccepted: key !== undefined && fake.keys.some((config) => config.key === key),
      text,
      body: parsed(text),
      remember: (what) => remembered.has(what) || (remembered.add(what), false),
    };
    for (const behaviour of http) {
      const reply = behaviour(asked);
      if (reply === undefined) continue;
      if ('forwardBody' in reply) return fake.fetch(new Request(request, { body: reply.forwardBody }));
      return Response.json(reply.body, { status: reply.status });
    }
    return fake.fetch(request);
  }

  const fetch = latencyMs === 0 ? answer : async (request: Request) => {
    const response = await answer(request);
    await delay(latencyMs);
    return response;
  };
  return { fake, apiKey: fake.keys[0]!.key, fetch, reply: undefined, bodyLimit: fake.bodyLimit };
}

function parsed(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The base URL the in-process target answers on (no socket; it names the target in the evidence). */
const IN_PROCESS_URL = 'http://reference-like.invalid';

/** A conformance target for the reference-like app, configured as a vendor run against the reference is: API 2.3.0, one key, the default profile. */
export function referenceLikeTarget(app: ReferenceLikeTarget): Promise<ConformanceTarget> {
  return createTarget({
    dispatcher: new InProcessDispatcher(app),
    operations,
    errorBody: ErrorBody,
    config: loadConfig({ env: { API_VERSION: REFERENCE_API_VERSION } }),
    run: { baseUrl: IN_PROCESS_URL, apiKey: app.apiKey, seed: testSeed(), salt: '', kind: 'fake' },
    retry: false,
    ...LEDGER,
    probes: PROBES,
  });
}

export type Outcome = ScenarioOutcome & { readonly scenario: string };

/** Runs scenarios against a fresh reference-like target, in-process, scheduled as a conformance run schedules them. */
export async function runAgainstReferenceLike(scenarios: readonly (typeof SCENARIOS)[number][], options: ReferenceLikeOptions = {}): Promise<Outcome[]> {
  const target = await referenceLikeTarget(createReferenceLikeApp(options));
  const outcomes = await runScenarios(scenarios, target, { timeoutMs: 30_000 });
  return outcomes.map((outcome, i) => ({ scenario: scenarios[i]!.id, ...outcome }));
}
