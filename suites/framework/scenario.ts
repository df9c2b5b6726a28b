/**
 * Scenarios: one check of a target, tagged with the rule IDs it proves, declaring what it needs.
 *
 * - `defineScenario(def, run)` makes one. Bind it to the operation table once with an
 *   instantiation expression: `export const scenario = defineScenario<typeof operations, typeof ErrorBody>;`
 * - `registerScenarios(scenarios, target)` turns them into vitest tests, one per scenario, named
 *   `[RULE-A, RULE-B] title`, with the rules, the outcome and the verdict of each rule
 *   (`ruleResults`, see checks.ts) in `task.meta.conformance` for the reporter. A scenario the target
 *   cannot run, or BLOCKED by a setup step, is skipped with the reason (`ctx.skip(reason)`).
 * - `runScenario(scenario, target)` runs one outside vitest's runner and returns the outcome, so a
 *   meta-test can check that a scenario fails against a deliberately broken fake; `runScenarios`
 *   runs several as a conformance run schedules them (schedule.ts).
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, it, TestRunner, type TestContext } from 'vitest';
import type { z } from 'zod';
import type { Capability, Need } from './capabilities.ts';
import {
  CONVENTION_RULES,
  gateOnConvention,
  isRouteNotServed,
  isTargetFault,
  RouteNotServed,
  RuleChecks,
  SetupFailed,
  SetupNotServed,
  TargetFault,
  toRuleResults,
  type PreconditionOverreachFinding,
  type RecordedVerdict,
  type RuleFacts,
  type RuleResult,
} from './checks.ts';
import { callMutates } from '../../spec/operation.ts';
import { ruleById } from '../../spec/rules/catalogue.ts';
import { renameRequestFields, WIRE_NAMES, type WireNameKey } from '../../spec/wire-names.ts';
import { OwnAssertion, printable, show } from './own-words.ts';
import type { CallFailure, CallSuccess, Client, OperationTable } from './client.ts';
import type { FixtureName, Fixtures } from './config.ts';
import type { ControlClient } from './control-client.ts';
import { replayableCalls, truncate, type EvidenceLog, type Exchange, type ReplayCall } from './evidence.ts';
import type { CleanupReport, ScenarioLedger } from './ledger.ts';
import { discover, discoveringFile, filesAfter } from './discovery.ts';
import type { Namespace } from './namespace.ts';
import { longestRunMs } from './guard.ts';
import { TargetWait, watchOwnTime } from './pace.ts';
import { openOwnTenant, type OwnTenant } from './own-tenant.ts';
import { inRunOrder, placement, RunPlan, runsAlone, Scheduler, type BesideJob } from './schedule.ts';
import { recordCreated, type MixedCaller, type Target, type TargetInfo } from './target.ts';

export interface ScenarioDef<R extends string = string> {
  /** Unique across the suite; letters, digits, `.`, `_`, `-`. Also scopes the scenario's IDs. */
  readonly id: string;
  readonly title: string;
  /** Rule IDs of the catalogue this scenario proves (at least one). */
  readonly rules: readonly R[];
  readonly needs?: readonly Need[];
  /**
   * Capabilities the scenario uses when the target has them and does without otherwise (it checks
   * `t.has(…)` first); they never cause a skip. E.g. the fake's clock as "now" where there is one.
   */
  readonly uses?: readonly Capability[];
  /** Default true. A read-only scenario (false) gets a client that refuses mutating operations. */
  readonly mutates?: boolean;
}

export interface Scenario<Ops extends OperationTable = OperationTable, E extends z.ZodType = z.ZodType, R extends string = string> {
  readonly id: string;
  readonly title: string;
  readonly rules: readonly string[];
  readonly needs: readonly Need[];
  readonly uses: readonly Capability[];
  readonly mutates: boolean;
  readonly run: (t: ScenarioContext<Ops, E, R>) => Promise<void>;
}

export interface ExpectedError<R extends string = string> {
  /** One status, or an inclusive range. Default: any 4xx. */
  readonly status?: number | readonly [number, number];
  readonly code?: string;
  /** The rule this refusal proves (see `check`). */
  readonly rule?: R;
}

/**
 * What a scenario's body works with. `R`: the rule IDs it may attribute assertions to (the
 * catalogue's, checked by the compiler; at run time a check must name one of the scenario's rules).
 */
export interface ScenarioContext<Ops extends OperationTable, E extends z.ZodType, R extends string = string> {
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
  /** The run's own secret key, for `client.raw` calls that send it in another form than the client does (redacted in the evidence). */
  readonly apiKey: string;
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
  /**
   * Runs assertions (`expect`…, sync or async) as checks of `rule`: a failure FAILs exactly `rule`
   * and stops the scenario, leaving the rules not yet decided BLOCKED by it (see checks.ts).
   */
  check<V>(rule: R, assertion: () => V): V;
  /**
   * Asserts a 200 and returns its body (raw when it failed its wire schema, which is recorded as a
   * FAIL of the operation's shape rule, not thrown). With `rule`, the assertion is that rule's. A 5xx
   * or a 429 beyond the retry budget is ERROR, never FAIL.
   */
  expectOk<Out>(result: CallSuccess<Out> | CallFailure<unknown>, rule?: R): Out;
  /** Asserts an error response (default: any 4xx), optionally its status, error code and rule; returns it. A 5xx or 429 is ERROR. */
  expectError<Err>(result: CallSuccess<unknown> | CallFailure<Err>, expected?: ExpectedError<R>): CallFailure<Err>;
  /**
   * For a call made only to build state (the scenario's subject is something else): returns the
   * 200's body. A refusal BLOCKS the rules not yet decided, with one message naming the call, its
   * request and its response; a route the target does not serve SKIPS the scenario; a 5xx is ERROR.
   * `needs`: top-level fields the scenario reads from the answer; a missing one blocks too.
   */
  setup<Out>(result: CallSuccess<Out> | CallFailure<unknown>, needs?: readonly (keyof Out & string)[]): Out;
  /**
   * Assertions about state the scenario relies on but does not prove (another rule's effect, e.g. a
   * new pool's counters in a scenario about skipping): a failure BLOCKS the rules not yet decided,
   * naming `what`; it fails no rule. It may rest only on setup operations, capabilities and rules
   * already reported: one that rests on a documented operation a rule of the scenario owns (the
   * exchanges since the previous check or precondition) is refused, and the scenario ends in ERROR
   * (checks.ts, "Preconditions").
   */
  precondition<V>(what: string, assertion: () => V): V;
  /**
   * The scenario goes on without asking part of `rule` (an operation the target does not serve, a
   * case whose nearest valid request was refused), saying what and why: a PASS of the rule here is
   * then reported as partly verified (checks.ts, RuleResult.unverified).
   */
  notVerified(rule: R, what: string): void;
  /**
   * Where the scenario can go on past a server fault (the next generated body, the next operation):
   * true when `result` is a 5xx, which is then charged once to the success rule of its operation
   * (ERR-SUCCESS-200 for a documented one, ERR-SUCCESS-200-SETUP for the reference's; checks.ts,
   * "Server faults") as ERROR, declared by the scenario or not; false for any other answer. A 5xx the
   * scenario does not ask about this way stops it, charged the same way.
   */
  serverFault(result: CallSuccess<unknown> | CallFailure<unknown>): boolean;
  /**
   * A 200 the scenario goes on to read as its schema says (records with ids, …): when it failed its
   * wire schema (its shape rule FAILs), the rules not yet decided are BLOCKED by that shape rule,
   * naming the answer. Returns the body.
   */
  requireShape<Out>(result: CallSuccess<Out>): Out;
  /**
   * The name this target gives a request field interface.md does not show (spec/wire-names.ts): the
   * profile's `wireNames[key]`, else the reference's. The client already sends the field under it;
   * a scenario needs this only to say which name it relied on.
   */
  wireName(key: WireNameKey): string;
  /**
   * Before a MUST rule relies on a wire name interface.md does not show: shows that the target reads
   * the field under its configured name. `observe(send)` makes the same request with the field (`send`
   * true) and without it, through `t.setup`, and returns what the field changes (e.g. the IDs a
   * filter lists). The name is read when the two observations differ; when they are alike, or a
   * request of the probe is refused, the rules not yet decided are SKIP: "interface.md does not show
   * this wire name; set wireNames.<key> in the profile". A name once read is remembered for the target.
   */
  requireWireName(key: WireNameKey, observe: (send: boolean) => Promise<unknown>): Promise<void>;
}

/** `blocked`: a setup step (or a missing field the scenario needed) stopped it before any rule failed. */
export type ScenarioStatus = 'pass' | 'fail' | 'error' | 'skip' | 'blocked';

/** What running a scenario came to: the scenario's status and the verdict of each rule. */
export interface ScenarioOutcome {
  readonly status: ScenarioStatus;
  /** Why it was skipped or blocked. */
  readonly reason?: string;
  readonly error?: unknown;
  readonly evidence: readonly Exchange[];
  /** Rule → verdict (declared rules and the shape rules its 200s exercised); exchanges by sequence number. */
  readonly verdicts: Readonly<Record<string, RecordedVerdict>>;
  /** Preconditions that rested on an operation a rule of the scenario owns (each ended the scenario in ERROR). */
  readonly overreachingPreconditions?: readonly PreconditionOverreachFinding[];
  /** Success rules a server fault was charged to (checks.ts, "Server faults"); their verdicts are in `verdicts`. */
  readonly charged?: readonly string[];
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
  /** Rule → its verdict in this scenario (checks.ts); `exchanges` index `evidence`. */
  readonly ruleResults?: Readonly<Record<string, RuleResult>>;
  /** Success rules a server fault was charged to, declared or not (their results are in `ruleResults`). */
  readonly charged?: readonly string[];
  /** Scenarios with a verdict other than PASS: the exchanges behind the verdicts and the last ones, bodies truncated. */
  readonly evidence?: readonly Exchange[];
  readonly exchangeCount?: number;
  /** Scenarios with a verdict other than PASS: their calls from the first, for the replay script of a failing rule. */
  readonly calls?: readonly ReplayCall[];
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

export function defineScenario<Ops extends OperationTable, E extends z.ZodType = z.ZodType, R extends string = string>(
  def: ScenarioDef<R>,
  run: (t: ScenarioContext<Ops, E, R>) => Promise<void>,
): Scenario<Ops, E, R> {
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

export class ScenarioTimeoutError extends Error {
  override readonly name = 'ScenarioTimeoutError';
}

export interface RunOptions {
  /** The scenario is abandoned (and its requests aborted) after this long of its own time, waits for the target left out (pace.ts). Default 120 s. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** What the catalogue says of a rule (level, operations, fields). Default: spec/rules' catalogue. */
  readonly rules?: (rule: string) => RuleFacts | undefined;
}

/** The catalogue's facts of a rule; rules outside it (the framework's own tests) are MUST rules owning no operation. */
export function catalogueFacts(rule: string): RuleFacts | undefined {
  const def = ruleById.get(rule);
  return def && { level: def.level, operations: def.operations, ...(def.fields ? { fields: def.fields } : {}) };
}

export const DEFAULT_SCENARIO_TIMEOUT_MS = 120_000;

export async function runScenario<Ops extends OperationTable, E extends z.ZodType, R extends string>(
  scenario: Scenario<Ops, E, R>,
  target: Target<Ops, E>,
  options: RunOptions = {},
): Promise<ScenarioOutcome> {
  const reason = target.capabilities.missing(needsOf(scenario));
  if (reason !== undefined) {
    const verdicts = Object.fromEntries(scenario.rules.map((rule) => [rule, { status: 'SKIP', message: reason } as const]));
    return { status: 'skip', reason, evidence: [], verdicts };
  }
  if (placement(scenario, target.capabilities) !== 'own-tenant' || target.control === undefined) return runIn(scenario, target, target.ledger.forScenario(scenario.id), options);

  // A tenant of its own (schedule.ts): what the scenario makes goes with it, so nothing of it is for the run's ledger or journal.
  let tenant: OwnTenant;
  try {
    tenant = await openOwnTenant(target.control);
  } catch (error) {
    return harnessFailed(scenario, `the harness failed: no organisation of its own (tenants.create): ${error instanceof Error ? error.message : String(error)}`, error, []);
  }
  const outcome = await runIn(scenario, inOwnTenant(target, tenant), { record: () => undefined }, options);
  try {
    await tenant.close();
  } catch (error) {
    return harnessFailed(scenario, `the harness failed: its organisation ${tenant.org} could not be deleted (tenants.delete), and stays on the target: ${error instanceof Error ? error.message : String(error)}`, error, outcome.evidence);
  }
  return outcome;
}

/** The target as a scenario in a tenant of its own sees it: that tenant's key (also redacted) on every call, the control plane's included. */
function inOwnTenant<Ops extends OperationTable, E extends z.ZodType>(target: Target<Ops, E>, tenant: OwnTenant): Target<Ops, E> {
  const evidence = target.evidence.child(tenant.secrets);
  const headers = tenant.headers();
  return { ...target, evidence, client: target.client.with({ evidence, headers }), control: target.control?.with({ evidence, headers }), apiKey: tenant.sandboxKey };
}

function harnessFailed(scenario: Pick<Scenario, 'rules'>, message: string, error: unknown, evidence: readonly Exchange[]): ScenarioOutcome {
  const verdicts = Object.fromEntries(scenario.rules.map((rule) => [rule, { status: 'ERROR', message } as const]));
  return { status: 'error', error: error instanceof Error ? Object.assign(error, { message }) : new Error(message), evidence, verdicts };
}

async function runIn<Ops extends OperationTable, E extends z.ZodType, R extends string>(
  scenario: Scenario<Ops, E, R>,
  target: Target<Ops, E>,
  ledger: ScenarioLedger,
  options: RunOptions,
): Promise<ScenarioOutcome> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_SCENARIO_TIMEOUT_MS;
  const log = target.evidence.child();
  const controller = new AbortController();
  const cancel = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) cancel();
  else options.signal?.addEventListener('abort', cancel, { once: true });
  // The limit is on the scenario's own time: what it waits for the target is left out (pace.ts).
  const waits = new TargetWait();
  let stopWatch: (() => void) | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    stopWatch = watchOwnTime(timeoutMs, waits, ({ ownMs, waitedMs }) => {
      const error = new ScenarioTimeoutError(
        `scenario ${scenario.id} ran ${Math.round(ownMs)} ms of its own time, past its limit of ${timeoutMs} ms (it also waited ${Math.round(waitedMs)} ms for the target, which the limit leaves out)`,
      );
      controller.abort(error);
      reject(error);
    });
  });
  const operations = target.client.operations;
  const checks = new RuleChecks({
    declared: scenario.rules,
    shapeRules: shapeRulesOf(operations),
    evidence: () => log.entries(),
    referenceOperation: referenceOperationOf(operations),
    documentedOperation: documentedOperationOf(operations),
    rules: options.rules ?? catalogueFacts,
  });
  const found = () => ({
    ...(checks.overreachingPreconditions.length > 0 ? { overreachingPreconditions: checks.overreachingPreconditions } : {}),
    ...(checks.chargedRules.length > 0 ? { charged: checks.chargedRules } : {}),
  });
  try {
    try {
      await Promise.race([scenario.run(context(scenario, target, log, { signal: controller.signal, waits, ledger }, checks)), timedOut]);
      const verdicts = log.redact(checks.results(false));
      const failed = scenario.rules.some((rule) => verdicts[rule]?.status === 'FAIL');
      return await settledOnConventions({ status: failed ? 'fail' : 'pass', evidence: log.entries(), verdicts, ...found() }, target);
    } catch (error) {
      const stop = checks.stop(error);
      const verdicts = log.redact(checks.results(true));
      const blockedBy = Object.values(verdicts).find((v) => v.blockedBy !== undefined);
      const why = stop.reason ?? (stop.kind === 'blocked' && blockedBy ? `BLOCKED by ${blockedBy.blockedBy}: ${blockedBy.message ?? ''}` : undefined);
      // A FAIL recorded before the stop (a SHOULD rule the scenario went on from) makes the scenario fail, whatever stopped it.
      const status = scenario.rules.some((rule) => verdicts[rule]?.status === 'FAIL') ? 'fail' : stop.kind;
      return await settledOnConventions({ status, ...(why === undefined ? {} : { reason: why }), error: scrubbed(error, log), evidence: log.entries(), verdicts, ...found() }, target);
    }
  } catch (harness) {
    // The framework itself failed (a bug, or the convention probe): ERROR of every rule, and the run goes on.
    const message = `the harness failed: ${harness instanceof Error ? harness.message : String(harness)}`;
    const verdicts = Object.fromEntries(scenario.rules.map((rule) => [rule, { status: 'ERROR', message } as const]));
    return { status: 'error', error: harness, evidence: log.entries(), verdicts };
  } finally {
    stopWatch?.();
    options.signal?.removeEventListener('abort', cancel);
    controller.abort(); // stops whatever the scenario left running
  }
}

/**
 * A scenario that FAILed a rule, on a target that breaks a convention every operation rests on (a
 * refused x-api-version, JSON bodies not read; see checks.ts): the FAILs of the other rules become
 * BLOCKED by the breach, and a scenario left without a FAIL is blocked.
 */
async function settledOnConventions(outcome: ScenarioOutcome, target: Pick<Target<OperationTable, z.ZodType>, 'conventionBreach'>): Promise<ScenarioOutcome> {
  if (!Object.values(outcome.verdicts).some((v) => v.status === 'FAIL') || target.conventionBreach === undefined) return outcome;
  const breach = await target.conventionBreach();
  if (breach === undefined) return outcome;
  const verdicts = gateOnConvention(outcome.verdicts, breach);
  if (outcome.status !== 'fail' || Object.values(verdicts).some((v) => v.status === 'FAIL')) return { ...outcome, verdicts };
  return { ...outcome, status: 'blocked', reason: `BLOCKED by ${breach.blockedBy}: ${breach.message}`, verdicts };
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

const shapeRuleSets = new WeakMap<OperationTable, ReadonlySet<string>>();

function shapeRulesOf(operations: OperationTable): ReadonlySet<string> {
  let rules = shapeRuleSets.get(operations);
  // The spelling rule is decided by the answers, as the shape rules are (checks.ts `shapeVerdicts`).
  if (!rules) shapeRuleSets.set(operations, (rules = new Set([...Object.values(operations).map((op) => op.shapeRule), CONVENTION_RULES.spelling])));
  return rules;
}

/** Whether an exchange called a reference-only operation (setup calls, reference reads), and whether that call read or wrote. */
function referenceOperationOf(operations: OperationTable): (exchange: Exchange) => 'read' | 'write' | undefined {
  const byName = new Map(Object.values(operations).map((op) => [op.name, op]));
  return (exchange) => {
    const op = byName.get(exchange.label);
    if (op === undefined || op.provenance !== 'reference') return undefined;
    return callMutates(op, exchange.request.body) ? 'write' : 'read';
  };
}

/** The documented operation an exchange called: by its label, or for a raw call by its path. */
function documentedOperationOf(operations: OperationTable): (exchange: Exchange) => string | undefined {
  const documented = Object.values(operations).filter((op) => op.provenance === 'documented');
  const byName = new Map(documented.map((op) => [op.name, op.name]));
  return (exchange) => {
    const named = byName.get(exchange.label);
    if (named !== undefined || exchange.label !== 'raw') return named;
    const path = pathOf(exchange.request.url);
    return documented.find((op) => path.endsWith(op.path))?.name;
  };
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** Names a target read (`requireWireName`), per target: `<key>=<name>`. */
const wireNamesRead = new WeakMap<object, Set<string>>();

/**
 * The scenario's view of the client: request fields interface.md does not show are sent under the
 * profile's wire names, and a 200 that left out required fields is watched for reads of them (checks.ts).
 */
function scenarioClient<Ops extends OperationTable, E extends z.ZodType>(
  client: Client<Ops, E>,
  checks: RuleChecks,
  names: Readonly<Partial<Record<WireNameKey, string>>>,
  mixed: { readonly caller: MixedCaller; readonly phase: number } | undefined,
): Client<Ops, E> {
  let sent = 0;
  const call: Client<Ops, E>['call'] = async (name, body, options = {}) => {
    const renamed = renameRequestFields(name, body, names) as typeof body;
    // Every other call as the mixed caller (the phase from the seed and the scenario), unless the call names its own caller.
    const asMixed = mixed !== undefined && sent++ % 2 === mixed.phase && !Object.keys(options.headers ?? {}).some((header) => header.toLowerCase() === 'user-agent') && mixed.caller.sends(name, renamed);
    const result = await client.call(name, renamed, asMixed ? { ...options, headers: { ...mixed.caller.headers, ...options.headers } } : options);
    return result.ok ? { ...result, body: checks.watched(result.body, result.exchange) } : result;
  };
  return new Proxy(client, {
    get(inner, key) {
      if (key === 'call') return call;
      const value: unknown = Reflect.get(inner, key, inner);
      return typeof value === 'function' ? value.bind(inner) : value;
    },
  });
}

/** Which of a scenario's calls go as the mixed caller, the odd or the even ones: fixed by the seed, so a re-run sends the same. */
function mixedPhase(seed: number, scenarioId: string): number {
  return createHash('sha256').update(`${seed}:${scenarioId}`).digest()[0]! & 1;
}

/** A 5xx or a 429 that outlived the retry budget says nothing about the rule: ERROR. */
function refuseTargetFault(result: CallSuccess<unknown> | CallFailure<unknown>): void {
  if (!result.ok && isTargetFault(result.status)) {
    const what = result.status === 429 ? 'kept answering 429 (rate limited) beyond the retry budget' : `answered ${result.status}`;
    throw new TargetFault(`${result.exchange.label}: the target ${what} ${preview(result.body)}`, result.exchange);
  }
}

function context<Ops extends OperationTable, E extends z.ZodType, R extends string>(
  scenario: Scenario<Ops, E, R>,
  target: Target<Ops, E>,
  log: EvidenceLog,
  { signal, waits, ledger }: { readonly signal: AbortSignal; readonly waits: TargetWait; readonly ledger: ScenarioLedger },
  checks: RuleChecks,
): ScenarioContext<Ops, E, R> {
  const declared = new Set<Capability>([...scenario.needs.flatMap((n): readonly Capability[] => (typeof n === 'string' ? [n] : n)), ...scenario.uses]);
  const fixtures: Partial<Fixtures> = Object.fromEntries(
    Object.entries(target.config.profile.fixtures).filter(([name, fixture]) => fixture && declared.has(`fixture:${name as FixtureName}`)),
  );
  const successRuleOf = (label: string) =>
    Object.values(target.client.operations).find((op) => op.name === label)?.provenance === 'reference' ? CONVENTION_RULES.successStatusSetup : CONVENTION_RULES.successStatus;
  const onSuccess = (operation: string, request: unknown) => recordCreated(target.creates, target.ns, ledger, operation, request);
  const wireNames = target.config.profile.wireNames ?? {};
  const wireName = (key: WireNameKey): string => wireNames[key] ?? WIRE_NAMES[key].reference;
  const client = target.client.with({ evidence: log, signal, waits, readOnly: !scenario.mutates, onSuccess, beforeSend: (operation, request) => checks.refuseRequestBuiltFromMissingField(operation, request) });
  return {
    scenario: { id: scenario.id, title: scenario.title, rules: scenario.rules },
    client: scenarioClient(client, checks, wireNames, target.mixedCaller && { caller: target.mixedCaller, phase: mixedPhase(target.info.seed, scenario.id) }),
    get control(): ControlClient {
      if (!declared.has('control-plane')) throw new Error(`scenario ${scenario.id} uses the control plane but declares it in neither needs nor uses`);
      if (!target.control) throw new Error(`scenario ${scenario.id}: the control plane is not available here; check t.has('control-plane') first`);
      return target.control.with({ evidence: log, signal, waits });
    },
    get otherTenantKey(): string {
      if (!declared.has('other-tenant')) throw new Error(`scenario ${scenario.id} uses another tenant's key but does not declare needs: ['other-tenant']`);
      if (target.otherTenantApiKey === undefined) throw new Error(`scenario ${scenario.id}: no key of another tenant here; check t.has('other-tenant') first`);
      return target.otherTenantApiKey;
    },
    apiKey: target.apiKey,
    ns: target.ns.scope(scenario.id),
    ledger,
    fixtures,
    seed: target.info.seed,
    get evidence() {
      return log.entries();
    },
    signal,
    has: (capability) => target.capabilities.has(capability),
    check: (rule, assertion) => checks.check(rule, assertion),
    expectOk(result, rule) {
      const assertOk = () => {
        refuseTargetFault(result);
        if (!result.ok) throw new OwnAssertion(`${result.exchange.label}: expected 200, got ${result.status} ${preview(result.body)}`, 200, result.status);
        return result.body;
      };
      // A success answered with another 2xx: the status is the success rule's deviation, not the checked rule's.
      const successRule = !result.ok && result.status >= 200 && result.status < 300 ? successRuleOf(result.exchange.label) : undefined;
      if (successRule !== undefined && successRule !== rule) {
        if (scenario.rules.includes(successRule)) return checks.check(successRule, assertOk, result.exchange);
        throw new SetupFailed(successRule, `${result.exchange.label} succeeded with ${result.status}, not 200 (${successRule}), so ${rule ?? 'the rule'} was not asked: ${preview(result.body)}`, result.exchange);
      }
      return rule === undefined ? assertOk() : checks.check(rule, assertOk, result.exchange);
    },
    expectError(result, expected = {}) {
      const assertError = () => {
        refuseTargetFault(result);
        const label = result.exchange.label;
        if (result.ok) throw new OwnAssertion(`${label}: expected an error, got 200 ${preview(result.body)}`, 'an error', 200);
        const failure = result as CallFailure<never>;
        const [min, max] = typeof expected.status === 'number' ? [expected.status, expected.status] : (expected.status ?? [400, 499]);
        const range = min === max ? `${min}` : `${min}-${max}`;
        const within = failure.status >= min && failure.status <= max;
        // An unknown route refuses every request: only a check that asked for exactly that status may take it as the refusal.
        if (isRouteNotServed(failure.status, failure.body) && !(within && expected.status !== undefined)) {
          throw new RouteNotServed(`${label} answered ${failure.status} as an unknown route ${preview(failure.body)}`, result.exchange);
        }
        if (!within) throw new OwnAssertion(`${label}: expected status ${range}, got ${failure.status} ${preview(failure.body)}`, range, failure.status);
        if (expected.code !== undefined) {
          // The code is read from the documented error body; another body is ERR-BODY-SHAPE's deviation, and the refusal above stands.
          if (failure.errorBodyIssues.length > 0 && expected.rule !== CONVENTION_RULES.errorBody) {
            const paths = failure.errorBodyIssues.map((issue) => issue.path || '(root)').join(', ');
            throw new SetupFailed(CONVENTION_RULES.errorBody, `${label}: the error body is not {message, code, env} (${paths}), so its code ${expected.code} cannot be read: ${preview(failure.body)}`, result.exchange);
          }
          const code = (failure.body as { code?: unknown } | null)?.code;
          if (code !== expected.code) throw new OwnAssertion(`${label}: expected error code ${expected.code}, got ${show(code)} (status ${failure.status}) ${preview(failure.body)}`, expected.code, code);
        }
        return failure;
      };
      return expected.rule === undefined ? assertError() : checks.check(expected.rule, assertError, result.exchange);
    },
    setup(result, needs = []) {
      refuseTargetFault(result);
      const label = result.exchange.label;
      const step = `setup ${label}`;
      if (!result.ok) {
        if (isRouteNotServed(result.status, result.body)) {
          throw new SetupNotServed(`the target does not serve ${label} (it answered ${result.status}), which this scenario needs to build its state`);
        }
        throw new SetupFailed(step, `${step} was refused: request ${preview(result.exchange.request.body)} answered ${result.status} ${preview(result.body)}`, result.exchange);
      }
      const body = result.body as Record<string, unknown> | null;
      const missing = needs.filter((field) => body === null || typeof body !== 'object' || body[field] === undefined);
      if (missing.length > 0) {
        throw new SetupFailed(step, `${step} answered 200 without ${missing.join(', ')}, which the scenario needs: ${preview(result.body)}`, result.exchange);
      }
      return result.body;
    },
    precondition: (what, assertion) => checks.precondition(what, assertion),
    notVerified: (rule, what) => checks.notVerified(rule, what),
    serverFault(result) {
      if (result.ok || result.status < 500) return false;
      checks.chargeFault(result.exchange, `${result.exchange.label} (exchange #${result.exchange.seq}) answered ${result.status} ${preview(result.body)}`);
      return true;
    },
    requireShape(result) {
      const issues = result.schemaIssues;
      if (issues.length === 0) return result.body;
      const shapeRule = result.exchange.shapeRule ?? `${result.exchange.label} shape`;
      const paths = issues.map((issue) => issue.path || '(root)').join(', ');
      throw new SetupFailed(shapeRule, `${result.exchange.label} (exchange #${result.exchange.seq}) answered a 200 that does not match its schema (${paths}), and the scenario reads it as the schema says`, result.exchange);
    },
    wireName,
    async requireWireName(key, observe) {
      const name = wireName(key);
      const { operation, described } = WIRE_NAMES[key];
      const read = wireNamesRead.get(target) ?? new Set<string>();
      wireNamesRead.set(target, read);
      if (read.has(`${key}=${name}`)) return;
      const notRead = (why: string): never => {
        throw new SetupNotServed(`interface.md does not show this wire name; set wireNames.${key} in the profile (the target did not read the ${described} of ${operation} as "${name}": ${why})`);
      };
      let sent: unknown;
      let left: unknown;
      try {
        sent = printable(await observe(true));
        left = printable(await observe(false));
      } catch (error) {
        if (error instanceof SetupFailed) return notRead(error.message);
        throw error;
      }
      checks.settled();
      if (isDeepStrictEqual(sent, left)) notRead(`with and without it the answer showed the same, ${show(sent)}`);
      read.add(`${key}=${name}`);
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
  const verdicts = Object.values(outcome.verdicts);
  const reported = outcome.status !== 'pass' || verdicts.some((v) => v.status !== 'PASS') ? boundExchanges(outcome.evidence, verdicts.flatMap((v) => v.seqs ?? [])) : undefined;
  return cloneable({
    scenario: scenario.id,
    title: scenario.title,
    rules: [...scenario.rules],
    target: info,
    status: outcome.status,
    ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
    shapeChecks,
    ruleResults: toRuleResults(outcome.verdicts, reported ?? []),
    ...(outcome.charged === undefined ? {} : { charged: [...outcome.charged] }),
    exchangeCount: outcome.evidence.length,
    ...(reported ? { evidence: reported, calls: replayableCalls(outcome.evidence) } : {}),
  });
}

/**
 * The meta as vitest can carry it from the worker to the reporter (a structured clone): as it is
 * when it clones, else as plain data (whatever a check held, e.g. an asymmetric matcher, printed).
 */
function cloneable(meta: ScenarioMeta): ScenarioMeta {
  try {
    structuredClone(meta);
    return meta;
  } catch {
    return printable(meta) as ScenarioMeta;
  }
}

/**
 * At most REPORTED_EXCHANGES exchanges, in order: those with the sequence numbers in `keep` (the
 * exchanges behind verdicts) first, then the latest ones; bodies cut to REPORTED_BODY_CHARS.
 */
export function boundExchanges(exchanges: readonly Exchange[], keep: readonly number[] = []): Exchange[] {
  const kept = new Set(keep);
  const chosen = new Set(exchanges.filter((e) => kept.has(e.seq)).slice(-REPORTED_EXCHANGES));
  for (const e of [...exchanges].reverse()) {
    if (chosen.size >= REPORTED_EXCHANGES) break;
    chosen.add(e);
  }
  const cut = (body: unknown) => {
    if (body === undefined) return undefined;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return text.length > REPORTED_BODY_CHARS ? truncate(text, REPORTED_BODY_CHARS) : body;
  };
  return exchanges.filter((e) => chosen.has(e)).map((e) => ({
    ...e,
    request: { ...e.request, body: cut(e.request.body) },
    ...(e.response ? { response: { ...e.response, body: cut(e.response.body) } } : {}),
  }));
}

const registrations = new WeakMap<object, number>();

/** The scenarios of every test file this worker runs, side by side (schedule.ts); made with the first target's concurrency. */
let runPlan: RunPlan<ScenarioOutcome> | undefined;
/** Files whose discovery has begun (discovery.ts). */
const discoveredFrom = new Set<string>();
/** Per test file: the cleanups of the targets its discovered scenarios ran on, started as soon as they are done. */
const discoveredCleanups = new Map<string, Promise<CleanupReport>[]>();
/** Each target is cleaned up and closed once, whoever asks. */
const closings = new WeakMap<object, Promise<CleanupReport>>();

export interface RegisterOptions {
  /** Per scenario, from its start (not from its test's), of its own time (pace.ts). Default 120 s. */
  readonly timeoutMs?: number;
}

/**
 * One vitest test per scenario, in the current file or describe block. The scenarios are run by the
 * run's plan (schedule.ts): up to the configured concurrency at a time, those that need the target
 * to themselves alone; each test waits for its scenario's outcome. The first file to register has
 * the files after it discovered (discovery.ts), so their scenarios start with its own. The target
 * is closed (ledger cleaned up, pool closed) after the last registered scenario of the file has run,
 * ahead of the scenarios still queued; the cleanup summary goes into the file's meta for the reporter.
 */
export function registerScenarios<Ops extends OperationTable, E extends z.ZodType, R extends string>(
  scenarios: readonly Scenario<Ops, E, R>[],
  target: Target<Ops, E>,
  options: RegisterOptions = {},
): void {
  const seen = new Set<string>();
  for (const { id } of scenarios) {
    if (seen.has(id)) throw new Error(`scenario ID ${id} is registered twice`);
    seen.add(id);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_SCENARIO_TIMEOUT_MS;
  const plan = (runPlan ??= new RunPlan(new Scheduler(() => target.concurrency())));
  const start = (scenario: Scenario<Ops, E, R>) => (signal: AbortSignal) => runScenario(scenario, target, { timeoutMs, signal });

  const discovering = discoveringFile();
  if (discovering !== undefined) {
    const jobs = scenarios
      .filter((scenario) => discovering.testNamePattern?.test(testName(scenario)) ?? true)
      .map((scenario) => plan.add(jobKey(discovering.filepath, scenario.id), { alone: runsAlone(scenario, target.capabilities), willRun: () => true, start: start(scenario) }));
    const cleanup = plan.settled(jobs).then(() => closeOnce(plan, target));
    discoveredCleanups.set(discovering.filepath, [...(discoveredCleanups.get(discovering.filepath) ?? []), cleanup]);
    return;
  }

  const file = TestRunner.getCurrentSuite().file.filepath;
  discoverAfter(plan, file);
  for (const scenario of scenarios) {
    const meta: ScenarioMeta = { scenario: scenario.id, title: scenario.title, rules: [...scenario.rules], target: target.info };
    let test: { readonly mode: string } | undefined;
    const job = plan.get(jobKey(file, scenario.id)) ?? plan.add(jobKey(file, scenario.id), { alone: runsAlone(scenario, target.capabilities), willRun: () => test?.mode === 'run', start: start(scenario) });
    // The test may wait for the scenarios queued before its own: the run's deadline bounds it, not the scenario's timeout.
    it(testName(scenario), { meta: { conformance: meta }, timeout: longestRunMs(target.config) + timeoutMs }, async (ctx) => {
      const outcome = await plan.result(job, ctx.signal);
      ctx.task.meta.conformance = scenarioMeta(scenario, target.info, outcome);
      if (outcome.status === 'skip' || outcome.status === 'blocked') ctx.skip(outcome.reason);
      if (outcome.status !== 'pass') throw outcome.error ?? new Error(failedRules(outcome));
    });
    test = TestRunner.getCurrentSuite().tasks.at(-1);
  }
  registrations.set(target, (registrations.get(target) ?? 0) + 1);
  // vitest 4 requires the hook's first parameter (its fixtures) to be a destructuring pattern.
  afterAll(async ({}, suite) => {
    const remaining = (registrations.get(target) ?? 1) - 1;
    registrations.set(target, remaining);
    if (remaining > 0) return;
    // The file's own target, and those its discovered scenarios ran on (their cleanup began when they were done).
    suite.file.meta.conformanceCleanup = await closeFile(plan, target, file);
    // The cleanup waits for the target as the scenarios do: the run's deadline bounds it, not a fixed time.
  }, longestRunMs(target.config) + timeoutMs);
}

/**
 * Work beside the run's scenarios (the exploration), as one vitest test named `name`: it starts when
 * the plan queues the scenarios (those of the files discovered after the first included), in no slot
 * of the scheduler, and is told when they are all done (schedule.ts `addBeside`), so it takes the
 * time they leave. `report` makes the test's verdict of its result. Its target is cleaned up and
 * closed after it, as a scenario file's.
 */
export function registerBeside<R>(
  name: string,
  target: Pick<Target<OperationTable, z.ZodType>, 'close' | 'config' | 'concurrency'>,
  start: BesideJob<R>['start'],
  report: (result: R, context: TestContext) => void,
  options: { readonly timeoutMs: number },
): void {
  const plan = (runPlan ??= new RunPlan(new Scheduler(() => target.concurrency())));
  const discovering = discoveringFile();
  if (discovering !== undefined) {
    if (!(discovering.testNamePattern?.test(name) ?? true)) return;
    const key = jobKey(discovering.filepath, name);
    plan.addBeside(key, { willRun: () => true, start });
    discoveredCleanups.set(discovering.filepath, [...(discoveredCleanups.get(discovering.filepath) ?? []), plan.besideSettled(key).then(() => closeOnce(plan, target))]);
    return;
  }
  const file = TestRunner.getCurrentSuite().file.filepath;
  discoverAfter(plan, file);
  const key = jobKey(file, name);
  let test: { readonly mode: string } | undefined;
  plan.addBeside(key, { willRun: () => test?.mode === 'run', start });
  it(name, { timeout: target.config.runTimeoutMs + options.timeoutMs }, async (ctx) => report(await plan.besideResult<R>(key, ctx.signal), ctx));
  test = TestRunner.getCurrentSuite().tasks.at(-1);
  // vitest 4 requires the hook's first parameter (its fixtures) to be a destructuring pattern.
  afterAll(async ({}, suite) => {
    suite.file.meta.conformanceCleanup = await closeFile(plan, target, file);
  }, 60_000 + options.timeoutMs);
}

/** The first file to register has the files after it discovered (discovery.ts), so their work is planned with its own. */
function discoverAfter(plan: RunPlan<ScenarioOutcome>, file: string): void {
  if (discoveredFrom.has(file)) return;
  discoveredFrom.add(file);
  plan.waitFor(Promise.all(filesAfter(file).map((after) => discover(after).catch(() => undefined))));
}

/** The file's own target, and those its discovered work ran on (their cleanup began when it was done), closed; the summary for the reporter. */
async function closeFile(plan: RunPlan<ScenarioOutcome>, target: Pick<Target<OperationTable, z.ZodType>, 'close'>, file: string): Promise<CleanupSummary> {
  const reports = await Promise.all([closeOnce(plan, target), ...(discoveredCleanups.get(file) ?? [])]);
  discoveredCleanups.delete(file);
  return summariseCleanup(mergeCleanups(reports));
}

function jobKey(file: string, scenario: string): string {
  return `${file}\n${scenario}`;
}

/** Cleans up and closes `target` once: ahead of the queued scenarios, but never while one that needs the target alone runs. */
function closeOnce(plan: RunPlan<ScenarioOutcome>, target: Pick<Target<OperationTable, z.ZodType>, 'close'>): Promise<CleanupReport> {
  let closing = closings.get(target);
  if (closing === undefined) closings.set(target, (closing = plan.first(() => target.close())));
  return closing;
}

function mergeCleanups(reports: readonly CleanupReport[]): CleanupReport {
  return {
    undone: reports.flatMap((r) => r.undone),
    alreadyGone: reports.flatMap((r) => r.alreadyGone),
    left: reports.flatMap((r) => r.left),
    failed: reports.flatMap((r) => r.failed),
  };
}

/**
 * Runs scenarios against one target as a conformance run does (schedule.ts): those that need the
 * target to themselves first, one by one, then the others `concurrency` at a time (default: the
 * target's configuration; 1: one after another, in the order given). Outcomes in the order given.
 */
export async function runScenarios<Ops extends OperationTable, E extends z.ZodType, R extends string>(
  scenarios: readonly Scenario<Ops, E, R>[],
  target: Target<Ops, E>,
  options: RunOptions & { readonly concurrency?: number } = {},
): Promise<ScenarioOutcome[]> {
  const scheduler = new Scheduler(options.concurrency ?? (() => target.concurrency()));
  const jobs = scenarios.map((scenario) => ({ scenario, alone: runsAlone(scenario, target.capabilities) }));
  const outcomes = new Map<(typeof jobs)[number], ScenarioOutcome>();
  await Promise.all(
    inRunOrder(jobs, scheduler.concurrency).map(async (job) => {
      outcomes.set(job, await scheduler.run(job.alone ? 'alone' : 'shared', () => runScenario(job.scenario, target, options)));
    }),
  );
  return jobs.map((job) => outcomes.get(job)!);
}

/** A scenario that ran to its end but FAILed a rule (a wire-schema check): which, and why. */
function failedRules(outcome: ScenarioOutcome): string {
  return Object.entries(outcome.verdicts)
    .filter(([, v]) => v.status === 'FAIL')
    .map(([rule, v]) => `${rule} FAIL: ${v.message ?? ''}`)
    .join('\n');
}

export function summariseCleanup(report: CleanupReport): CleanupSummary {
  return {
    undone: report.undone.length,
    alreadyGone: report.alreadyGone.length,
    left: report.left.map(({ entry }) => ({ kind: entry.kind, id: entry.id })),
    failed: report.failed.map(({ entry, error }) => ({ kind: entry.kind, id: entry.id, error })),
  };
}
