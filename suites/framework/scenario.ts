/**
 * Scenarios: one check of a target, tagged with the rule IDs it proves, declaring what it needs.
 *
 * - `defineScenario(def, run)` makes one. Bind it to the operation table once with an
 *   instantiation expression: `export const scenario = defineScenario<typeof operations, typeof ErrorBody>;`
 * - `registerScenarios(scenarios, target)` turns them into vitest tests, one per scenario, named
 *   `[RULE-A, RULE-B] title`, with the rules and the outcome in `task.meta.conformance` for the
 *   reporter. A scenario the target cannot run is skipped with the reason (`ctx.skip(reason)`).
 * - `runScenario(scenario, target)` runs one outside vitest's runner and returns the outcome, so a
 *   meta-test can check that a scenario fails against a deliberately broken fake.
 */
import { afterAll, expect, it } from 'vitest';
import type { z } from 'zod';
import type { Capability, Need } from './capabilities.ts';
import { WireSchemaError, type CallFailure, type CallSuccess, type Client, type OperationTable } from './client.ts';
import type { FixtureName, Fixtures } from './config.ts';
import type { ControlClient } from './control-client.ts';
import { truncate, type EvidenceLog, type Exchange } from './evidence.ts';
import type { CleanupReport, ScenarioLedger } from './ledger.ts';
import type { Namespace } from './namespace.ts';
import type { Target, TargetInfo } from './target.ts';

export interface ScenarioDef {
  /** Unique across the suite; letters, digits, `.`, `_`, `-`. Also scopes the scenario's IDs. */
  readonly id: string;
  readonly title: string;
  /** Rule IDs of the catalogue this scenario proves (at least one). */
  readonly rules: readonly string[];
  readonly needs?: readonly Need[];
  /**
   * Capabilities the scenario uses when the target has them and does without otherwise (it checks
   * `t.has(…)` first); they never cause a skip. E.g. the fake's clock as "now" where there is one.
   */
  readonly uses?: readonly Capability[];
  /** Default true. A read-only scenario (false) gets a client that refuses mutating operations. */
  readonly mutates?: boolean;
}

export interface Scenario<Ops extends OperationTable = OperationTable, E extends z.ZodType = z.ZodType> {
  readonly id: string;
  readonly title: string;
  readonly rules: readonly string[];
  readonly needs: readonly Need[];
  readonly uses: readonly Capability[];
  readonly mutates: boolean;
  readonly run: (t: ScenarioContext<Ops, E>) => Promise<void>;
}

export interface ExpectedError {
  /** One status, or an inclusive range. Default: any 4xx. */
  readonly status?: number | readonly [number, number];
  readonly code?: string;
}

export interface ScenarioContext<Ops extends OperationTable, E extends z.ZodType> {
  readonly scenario: Pick<Scenario, 'id' | 'title' | 'rules'>;
  /** Records into this scenario's evidence; read-only when the scenario declares `mutates: false`. */
  readonly client: Client<Ops, E>;
  /** The control plane. Throws unless the scenario declares `control-plane` among its needs and the target has it. */
  readonly control: ControlClient;
  /**
   * A secret key of another tenant of the target, for `client.raw` calls as that tenant (redacted in
   * the evidence like the run's key). Throws unless the scenario declares `other-tenant` and the target has it.
   */
  readonly otherTenantKey: string;
  /** This scenario's scope of the run's namespace. */
  readonly ns: Namespace;
  readonly ledger: ScenarioLedger;
  /** The profile's fixtures this scenario declared (`fixture:<name>`) and the profile supplies. */
  readonly fixtures: Partial<Fixtures>;
  readonly seed: number;
  /** This scenario's exchanges so far. */
  readonly evidence: readonly Exchange[];
  /** Aborted when the scenario times out or the run is cancelled. */
  readonly signal: AbortSignal;
  has(capability: Capability): boolean;
  /** Asserts a 200 and returns its validated body. */
  expectOk<Out>(result: CallSuccess<Out> | CallFailure<unknown>): Out;
  /** Asserts an error response (default: any 4xx), optionally its status and error code; returns it. */
  expectError<Err>(result: CallSuccess<unknown> | CallFailure<Err>, expected?: ExpectedError): CallFailure<Err>;
}

export type ScenarioStatus = 'pass' | 'fail' | 'error' | 'skip';

/** What running a scenario came to. `fail`: an assertion or a wire-schema check failed. `error`: anything else went wrong. */
export interface ScenarioOutcome {
  readonly status: ScenarioStatus;
  /** Why it was skipped. */
  readonly reason?: string;
  readonly error?: unknown;
  readonly evidence: readonly Exchange[];
}

/** What a scenario's vitest test carries to the reporter (JSON; evidence bounded). */
export interface ScenarioMeta {
  readonly scenario: string;
  readonly title: string;
  readonly rules: readonly string[];
  readonly target?: TargetInfo;
  readonly status?: ScenarioStatus;
  readonly reason?: string;
  /** Shape rule → outcome of every wire-schema check the scenario's 200s went through. */
  readonly shapeChecks?: Readonly<Record<string, 'pass' | 'fail'>>;
  /** Failing scenarios: their last exchanges, bodies truncated. */
  readonly evidence?: readonly Exchange[];
  readonly exchangeCount?: number;
}

export interface CleanupSummary {
  readonly undone: number;
  readonly alreadyGone: number;
  readonly left: readonly { readonly kind: string; readonly id: string }[];
  readonly failed: readonly { readonly kind: string; readonly id: string; readonly error: string }[];
}

declare module 'vitest' {
  interface TaskMeta {
    conformance?: ScenarioMeta;
    conformanceCleanup?: CleanupSummary;
  }
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const RULE_ID = /^[A-Z][A-Z0-9]*(-[A-Z0-9]+)*$/;

export const REPORTED_EXCHANGES = 20;
export const REPORTED_BODY_CHARS = 2_000;

export function defineScenario<Ops extends OperationTable, E extends z.ZodType = z.ZodType>(
  def: ScenarioDef,
  run: (t: ScenarioContext<Ops, E>) => Promise<void>,
): Scenario<Ops, E> {
  if (!ID.test(def.id)) throw new Error(`scenario ID ${JSON.stringify(def.id)} must be letters, digits, ".", "_" or "-"`);
  if (def.rules.length === 0) throw new Error(`scenario ${def.id} names no rule`);
  const bad = def.rules.filter((r) => !RULE_ID.test(r));
  if (bad.length > 0) throw new Error(`scenario ${def.id}: not rule IDs: ${bad.join(', ')}`);
  return { id: def.id, title: def.title, rules: [...def.rules], needs: def.needs ?? [], uses: def.uses ?? [], mutates: def.mutates ?? true, run };
}

/** `[RULE-A, RULE-B] title`: the rule IDs travel in every test name (JUnit included). */
export function testName(scenario: Pick<Scenario, 'rules' | 'title'>): string {
  return `[${scenario.rules.join(', ')}] ${scenario.title}`;
}

/** A scenario's needs, with `mutation` added when it mutates. */
export function needsOf(scenario: Pick<Scenario, 'needs' | 'mutates'>): readonly Need[] {
  return scenario.mutates ? [...scenario.needs, 'mutation'] : scenario.needs;
}

/** Assertion failures and wire-schema failures are `fail`; anything else (transport, timeout, a bug) is `error`. */
export function classifyFailure(error: unknown): 'fail' | 'error' {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'AssertionError' || error instanceof WireSchemaError ? 'fail' : 'error';
}

export class ScenarioTimeoutError extends Error {
  override readonly name = 'ScenarioTimeoutError';
}

export interface RunOptions {
  /** The scenario is abandoned (and its requests aborted) after this long. Default 120 s. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export const DEFAULT_SCENARIO_TIMEOUT_MS = 120_000;

export async function runScenario<Ops extends OperationTable, E extends z.ZodType>(
  scenario: Scenario<Ops, E>,
  target: Target<Ops, E>,
  options: RunOptions = {},
): Promise<ScenarioOutcome> {
  const reason = target.capabilities.missing(needsOf(scenario));
  if (reason !== undefined) return { status: 'skip', reason, evidence: [] };

  const timeoutMs = options.timeoutMs ?? DEFAULT_SCENARIO_TIMEOUT_MS;
  const log = target.evidence.child();
  const controller = new AbortController();
  const cancel = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) cancel();
  else options.signal?.addEventListener('abort', cancel, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new ScenarioTimeoutError(`scenario ${scenario.id} did not finish within ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    await Promise.race([scenario.run(context(scenario, target, log, controller.signal)), timedOut]);
    return { status: 'pass', evidence: log.entries() };
  } catch (error) {
    return { status: classifyFailure(error), error: scrubbed(error, log), evidence: log.entries() };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', cancel);
    controller.abort(); // stops whatever the scenario left running
  }
}

/**
 * The error with the key scrubbed from its message, stack and assertion operands, so that no
 * reporter (console, JUnit, ours) can print it, even when a failure message quotes a response that
 * echoed the key.
 */
function scrubbed(error: unknown, log: EvidenceLog): unknown {
  if (!(error instanceof Error)) return log.redact(error);
  error.message = log.redact(error.message);
  if (error.stack !== undefined) error.stack = log.redact(error.stack);
  const operands = error as Error & { actual?: unknown; expected?: unknown };
  if ('actual' in operands) operands.actual = log.redact(operands.actual);
  if ('expected' in operands) operands.expected = log.redact(operands.expected);
  return error;
}

function context<Ops extends OperationTable, E extends z.ZodType>(
  scenario: Scenario<Ops, E>,
  target: Target<Ops, E>,
  log: EvidenceLog,
  signal: AbortSignal,
): ScenarioContext<Ops, E> {
  const declared = new Set<Capability>([...scenario.needs.flatMap((n): readonly Capability[] => (typeof n === 'string' ? [n] : n)), ...scenario.uses]);
  const fixtures: Partial<Fixtures> = Object.fromEntries(
    Object.entries(target.config.profile.fixtures).filter(([name, fixture]) => fixture && declared.has(`fixture:${name as FixtureName}`)),
  );
  return {
    scenario: { id: scenario.id, title: scenario.title, rules: scenario.rules },
    client: target.client.with({ evidence: log, signal, readOnly: !scenario.mutates }),
    get control(): ControlClient {
      if (!declared.has('control-plane')) throw new Error(`scenario ${scenario.id} uses the control plane but declares it in neither needs nor uses`);
      if (!target.control) throw new Error(`scenario ${scenario.id}: the control plane is not available here; check t.has('control-plane') first`);
      return target.control.with({ evidence: log, signal });
    },
    get otherTenantKey(): string {
      if (!declared.has('other-tenant')) throw new Error(`scenario ${scenario.id} uses another tenant's key but does not declare needs: ['other-tenant']`);
      if (target.otherTenantApiKey === undefined) throw new Error(`scenario ${scenario.id}: no key of another tenant here; check t.has('other-tenant') first`);
      return target.otherTenantApiKey;
    },
    ns: target.ns.scope(scenario.id),
    ledger: target.ledger.forScenario(scenario.id),
    fixtures,
    seed: target.info.seed,
    get evidence() {
      return log.entries();
    },
    signal,
    has: (capability) => target.capabilities.has(capability),
    expectOk(result) {
      expect(result.ok, `${result.exchange.label}: expected 200, got ${result.status} ${preview(result.body)}`).toBe(true);
      return (result as CallSuccess<never>).body;
    },
    expectError(result, expected = {}) {
      const label = result.exchange.label;
      expect(result.ok, `${label}: expected an error, got 200 ${preview(result.body)}`).toBe(false);
      const failure = result as CallFailure<never>;
      const [min, max] = typeof expected.status === 'number' ? [expected.status, expected.status] : (expected.status ?? [400, 499]);
      const within = `${label}: expected status ${min === max ? min : `${min}-${max}`}, got ${failure.status} ${preview(failure.body)}`;
      expect(failure.status, within).toBeGreaterThanOrEqual(min);
      expect(failure.status, within).toBeLessThanOrEqual(max);
      if (expected.code !== undefined) {
        const code = (failure.body as { code?: unknown } | null)?.code;
        expect(code, `${label}: expected error code ${expected.code} ${preview(failure.body)}`).toBe(expected.code);
      }
      return failure;
    },
  };
}

function preview(body: unknown): string {
  return truncate(JSON.stringify(body) ?? 'undefined', 300);
}

/** The meta a scenario's test carries to the reporter. */
export function scenarioMeta(scenario: Pick<Scenario, 'id' | 'title' | 'rules'>, info: TargetInfo, outcome: ScenarioOutcome): ScenarioMeta {
  const shapeChecks: Record<string, 'pass' | 'fail'> = {};
  for (const exchange of outcome.evidence) {
    if (exchange.shapeRule === undefined) continue;
    const result = exchange.schemaIssues && exchange.schemaIssues.length > 0 ? 'fail' : 'pass';
    shapeChecks[exchange.shapeRule] = shapeChecks[exchange.shapeRule] === 'fail' ? 'fail' : result;
  }
  const failed = outcome.status === 'fail' || outcome.status === 'error';
  return {
    scenario: scenario.id,
    title: scenario.title,
    rules: [...scenario.rules],
    target: info,
    status: outcome.status,
    ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
    shapeChecks,
    exchangeCount: outcome.evidence.length,
    ...(failed ? { evidence: boundExchanges(outcome.evidence) } : {}),
  };
}

/** The last REPORTED_EXCHANGES exchanges, bodies cut to REPORTED_BODY_CHARS. */
export function boundExchanges(exchanges: readonly Exchange[]): Exchange[] {
  const cut = (body: unknown) => {
    if (body === undefined) return undefined;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return text.length > REPORTED_BODY_CHARS ? truncate(text, REPORTED_BODY_CHARS) : body;
  };
  return exchanges.slice(-REPORTED_EXCHANGES).map((e) => ({
    ...e,
    request: { ...e.request, body: cut(e.request.body) },
    ...(e.response ? { response: { ...e.response, body: cut(e.response.body) } } : {}),
  }));
}

const registrations = new WeakMap<object, number>();

export interface RegisterOptions {
  /** Per scenario; vitest's own test timeout is set 10 s beyond it. Default 120 s. */
  readonly timeoutMs?: number;
}

/**
 * One vitest test per scenario, in the current file or describe block. The target is closed
 * (ledger cleaned up, pool closed) after the last registered scenario of the file has run; the
 * cleanup summary goes into the file's meta for the reporter.
 */
export function registerScenarios<Ops extends OperationTable, E extends z.ZodType>(
  scenarios: readonly Scenario<Ops, E>[],
  target: Target<Ops, E>,
  options: RegisterOptions = {},
): void {
  const seen = new Set<string>();
  for (const { id } of scenarios) {
    if (seen.has(id)) throw new Error(`scenario ID ${id} is registered twice`);
    seen.add(id);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_SCENARIO_TIMEOUT_MS;
  for (const scenario of scenarios) {
    const meta: ScenarioMeta = { scenario: scenario.id, title: scenario.title, rules: [...scenario.rules], target: target.info };
    it(testName(scenario), { meta: { conformance: meta }, timeout: timeoutMs + 10_000 }, async (ctx) => {
      const outcome = await runScenario(scenario, target, { timeoutMs, signal: ctx.signal });
      ctx.task.meta.conformance = scenarioMeta(scenario, target.info, outcome);
      if (outcome.status === 'skip') ctx.skip(outcome.reason);
      if (outcome.status !== 'pass') throw outcome.error;
    });
  }
  registrations.set(target, (registrations.get(target) ?? 0) + 1);
  // vitest 4 requires the hook's first parameter (its fixtures) to be a destructuring pattern.
  afterAll(async ({}, suite) => {
    const remaining = (registrations.get(target) ?? 1) - 1;
    registrations.set(target, remaining);
    if (remaining === 0) suite.file.meta.conformanceCleanup = summariseCleanup(await target.close());
  }, Math.max(60_000, timeoutMs));
}

export function summariseCleanup(report: CleanupReport): CleanupSummary {
  return {
    undone: report.undone.length,
    alreadyGone: report.alreadyGone.length,
    left: report.left.map(({ entry }) => ({ kind: entry.kind, id: entry.id })),
    failed: report.failed.map(({ entry, error }) => ({ kind: entry.kind, id: entry.id, error })),
  };
}
