/**
 * Per-rule verdicts of one scenario run (DESIGN.md decision 7). Every assertion names the rule it
 * proves; a failed assertion fails exactly that rule, and a detected deviation is never lost
 * (issue 17): it is reported as FAIL of its rule, or (when it cannot be that rule's) names the
 * answer that caused it.
 *
 * How an assertion finds its rule (see ScenarioContext in scenario.ts):
 * - `t.check(RULE, () => expect(…)…)`, `t.expectOk(result, RULE)`, `t.expectError(result, { rule: RULE })`:
 *   attributed; a failure FAILs RULE. A MUST rule's failure stops the scenario; a SHOULD rule's is
 *   recorded and the scenario goes on (see "SHOULD failures" below).
 * - Wire-schema checks of 200 answers are attributed to the operation's shape rule by the client;
 *   they record, they never stop the scenario (the scenario goes on with the raw body). An explicit
 *   FAIL of a shape rule (a check naming it) stands against the schema PASS of the same answer.
 * - An unattributed assertion (plain `expect`, `t.expectOk(result)`): in a scenario with exactly one
 *   rule that is not a shape rule (its *primary* rule), it is that rule's. In a scenario with
 *   several, it fails no rule: the rules not yet decided become BLOCKED by "an unattributed
 *   assertion" and the scenario's test still fails (status `fail`), so the author attributes it.
 *
 * SHOULD failures. A failed check of a SHOULD rule records its FAIL and returns a stand-in for the
 * value the check would have returned: the scenario goes on, so a MUST check that does not need
 * that value still runs, and PASSes when it holds. Any use of the stand-in (a property read, a call,
 * a conversion) throws NeedsFailedCheck, which BLOCKS the rules not yet decided on that SHOULD rule:
 * they needed its result. A later check that fails is BLOCKED by the SHOULD rule too, its own
 * failure quoted: the state the scenario built on may not be what it assumed (a model of balances
 * after a track that deducted nothing), so it cannot be told from a knock-on; a MUST rule left so
 * keeps the run from PASSED, and the deviation is in its message. A crash (a TypeError) after such
 * a failure is taken as its knock-on too.
 * The same holds for a check of any level that fails on its rule's own field missing from an answer
 * (RuleDef.fields, "Missing fields"): that is a fact of the answer, not of state later steps build
 * on, so the scenario goes on and a later check failing on its own missing field FAILs too.
 *
 * Preconditions (`t.precondition`) may rest only on setup operations (the reference's), on
 * capabilities, and on rules already reported (FAILed) in the same scenario. A precondition rests
 * on the exchanges since the previous check or precondition; when one of them called a documented
 * operation that a rule of the scenario owns (RuleDef.operations), the precondition asserts that
 * rule's behaviour, so it is refused, loudly (PreconditionOverreach: the scenario ends in ERROR),
 * whether it holds or not: write it as a check of the rule it proves.
 *
 * "Not served". An answer says the target has no such route (isRouteNotServed) when it is a 405 or
 * 501; a 404 whose body is not a JSON object with a string `code`, or whose code names a route
 * (`route_not_found`, …); or a 401 with an empty body or code `no_auth_header` (how the reference
 * answers an unknown path once the key is accepted, which preflight checked). A check that fails on such an answer (or a
 * refusal check it would pass only by accident) is not a deviation of its rule: it is SKIP "not
 * served" when the rule owns that operation, and BLOCKED by "<operation> not served" otherwise; when
 * the scenario stops, every undecided rule owning an operation that was not served is SKIP too.
 *
 * Missing fields. A 200 answer that left out a required field FAILs its shape rule (one missing
 * field, one FAIL). The scenario sees such an answer through a watch (missing-reads.ts) that notes
 * every read of a left-out path and every copy of an object lacking one; a later check is BLOCKED by
 * that answer's shape rule, naming the answer and the path, only when the value it compared is the
 * missing path or lies under it (see #missingReadBehind: the answer or a copy of it compared with
 * its differences exactly at missing paths, or a missing path read since the previous check and
 * every difference an absent value), unless the path is one of the rule's own fields (RuleDef.fields)
 * of its own operation: then it is the rule's own deviation and FAILs. A list with an extra element
 * compared with `[]` is never taken for a missing field. A request built from a value read there is
 * not sent (it BLOCKS on the same answer).
 *
 * What a thrown error makes of the rules not yet decided (a rule is decided once it FAILed or was
 * ERROR; a rule whose checks passed so far is not decided until the scenario ends):
 * - assertion of rule R → R FAIL (or SKIP/BLOCKED as above); the others BLOCKED by R;
 * - SetupFailed (a call that only builds state was refused) → BLOCKED by `setup <operation>`;
 * - SetupNotServed (the target has no such route) → SKIP with the reason;
 * - a control-plane call refused with a 4xx (the state it should force is not there) → BLOCKED by it;
 * - TargetFault (5xx, 429 beyond the retry budget), TransportError (network, timeout), a scenario
 *   timeout, an answer that is not JSON → ERROR, of R when inside R's check (the others BLOCKED by
 *   R); never FAIL. Outside a check, a server fault (a 5xx, or a request that timed out) is charged
 *   once, to the success rule of the operation called (ERR-SUCCESS-200 for a documented operation,
 *   ERR-SUCCESS-200-SETUP for the reference's; declared by the scenario or not), ERROR, and the
 *   undecided rules are BLOCKED by it, the call named ("Server faults"); anything else (a 429 beyond
 *   the budget, a network failure, the run's deadline, a scenario timeout) is ERROR of every
 *   undecided rule;
 * - PreconditionOverreach (a suite defect) → ERROR;
 * - any other error (a TypeError reading a field): after a read of a missing field → BLOCKED by that
 *   answer's shape rule; after a SHOULD failure the scenario went on from → BLOCKED by that rule;
 *   after a 200 that failed its wire schema → BLOCKED by that shape rule; else ERROR (a bug).
 * A scenario that ends without a thrown error: every declared rule not FAILed is PASS, except a
 * declared shape rule no 200 exercised, which is BLOCKED.
 *
 * Server faults. A scenario that can go on past a 5xx (the next generated body, the next operation)
 * says so with `chargeFault(exchange)`: the fault is charged as above, once per rule (the first
 * call's message stands, the others counted), and the scenario goes on; a rule so charged is ERROR
 * whatever the scenario's other checks of it found.
 *
 * Across scenarios a rule takes the highest status: FAIL > ERROR > PASS > BLOCKED > SKIP
 * (`aggregateRuleStatus`).
 */
import type { Exchange } from './evidence.ts';
import { TransportError } from './http.ts';
import { dotPath, missingPaths, watchedPlace, watchMissing, type MissingRead } from './missing-reads.ts';
import { differencesOf, inOwnWords, printable } from './own-words.ts';

export type RuleStatus = 'PASS' | 'FAIL' | 'BLOCKED' | 'SKIP' | 'ERROR';

/** One rule's verdict in one scenario (the shared contract with the reports, COMMON.md §1). */
export interface RuleResult {
  readonly status: RuleStatus;
  readonly message?: string;
  /** BLOCKED: the rule or setup step that stopped the scenario before this rule was decided. */
  readonly blockedBy?: string;
  /** FAIL: the failing assertion's operands (plain data: matchers as their printed form). */
  readonly expected?: unknown;
  readonly actual?: unknown;
  /** Indices into the scenario's reported evidence (`ScenarioMeta.evidence`) of the exchanges behind the verdict. */
  readonly exchanges?: readonly number[];
  /** PASS: what of the rule this scenario did not ask, and why (`t.notVerified`): the rule is only partly verified here. */
  readonly unverified?: readonly string[];
}

/** A verdict as recorded during the run: exchanges by their sequence number in the scenario's log. */
export interface RecordedVerdict extends Omit<RuleResult, 'exchanges'> {
  readonly seqs?: readonly number[];
  /**
   * Reference-only operations the rule's checks rested on: reads of them made since the check (or
   * precondition) before, and answers of them a check asserted (`expectOk(result, rule)`). A MUST rule must have
   * none (suites/meta/must-documented.test.ts).
   */
  readonly referenceOperations?: readonly string[];
}

/** Lowest first. */
const PRECEDENCE: readonly RuleStatus[] = ['SKIP', 'BLOCKED', 'PASS', 'ERROR', 'FAIL'];

function outranks(a: RuleStatus, b: RuleStatus): boolean {
  return PRECEDENCE.indexOf(a) > PRECEDENCE.indexOf(b);
}

/** A rule's status across scenarios: the highest of FAIL > ERROR > PASS > BLOCKED > SKIP; undefined for none. */
export function aggregateRuleStatus(statuses: Iterable<RuleStatus>): RuleStatus | undefined {
  let highest: RuleStatus | undefined;
  for (const status of statuses) {
    if (highest === undefined || outranks(status, highest)) highest = status;
  }
  return highest;
}

/** A call made only to build state was refused, or answered without a field the scenario needs. */
export class SetupFailed extends Error {
  override readonly name = 'SetupFailed';
  constructor(
    /** `setup <operation>`. */
    readonly step: string,
    message: string,
    readonly exchange?: Exchange,
  ) {
    super(message);
  }
}

/** The target does not serve a call the scenario needs to build its state: the scenario is skipped. */
export class SetupNotServed extends Error {
  override readonly name = 'SetupNotServed';
}

/** The target answered 5xx, or kept answering 429 beyond the retry budget: ERROR, never FAIL. */
export class TargetFault extends Error {
  override readonly name = 'TargetFault';
  constructor(
    message: string,
    readonly exchange?: Exchange,
  ) {
    super(message);
  }
}

/** A check's answer says the target has no such route: not the checked rule's deviation (see "Not served"). */
export class RouteNotServed extends Error {
  override readonly name = 'RouteNotServed';
  constructor(
    message: string,
    readonly exchange: Exchange,
  ) {
    super(message);
  }
}

/** The scenario used what a failed SHOULD check would have returned: the rules not yet decided needed its result. */
export class NeedsFailedCheck extends Error {
  override readonly name = 'NeedsFailedCheck';
  constructor(readonly rule: string) {
    super(`the scenario used the result of the failed check of ${rule}`);
  }
}

/** A suite defect: a precondition asserts the behaviour of an operation a rule of its scenario owns. */
export class PreconditionOverreach extends Error {
  override readonly name = 'PreconditionOverreach';
}

/** A server fault outside a rule check: a 5xx answer, or a request that got no answer in time (see "Server faults"). */
export function isServerFault(error: unknown): error is { readonly exchange: Exchange; readonly message: string } {
  const exchange = (error as { exchange?: Exchange } | null)?.exchange;
  if (exchange === undefined) return false;
  if (error instanceof TransportError) return error.kind === 'timeout';
  return nameOf(error) === 'TargetFault' && (exchange.response?.status ?? 0) >= 500;
}

/** Statuses that say nothing about the rule under test: the target is failing or rate limiting. */
export function isTargetFault(status: number): boolean {
  return status >= 500 || status === 429;
}

function isEmptyBody(body: unknown): boolean {
  return body === undefined || body === null || body === '' || (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0);
}

const NAMES_A_ROUTE = /route|endpoint|path|method|cannot post/i;

/**
 * Whether an answer says the target has no such route (rather than refusing the request):
 * - a 405 or 501;
 * - a 404 whose body is not a JSON object (an HTML or text page, nothing), or an empty one; or whose
 *   error code (`code`, or `error.code` in a wrapped body) names a route (`route_not_found` is the
 *   fake's); or that has no code at all and a message naming a route (`Cannot POST /v1/x`, `Route
 *   POST:/v1/x not found`). A 404 with any other code (`customer_not_found`, `not_found`) refuses the request;
 * - a 401 with an empty body, or with code `no_auth_header` ("Unauthorized - no session found"):
 *   how the reference answers an unknown path after it accepted the key (preflight checked the key;
 *   exchanges 150, 153, 154).
 */
export function isRouteNotServed(status: number, body: unknown): boolean {
  if (status === 405 || status === 501) return true;
  if (status === 404) {
    if (body === null || typeof body !== 'object' || Array.isArray(body) || isEmptyBody(body)) return true;
    const wrapped = (body as { error?: unknown }).error;
    const inner = wrapped !== null && typeof wrapped === 'object' ? (wrapped as Record<string, unknown>) : {};
    const code = (body as { code?: unknown }).code ?? inner['code'];
    if (typeof code === 'string') return NAMES_A_ROUTE.test(code);
    const message = [(body as { message?: unknown }).message, wrapped, inner['message']].find((m) => typeof m === 'string');
    return typeof message === 'string' && NAMES_A_ROUTE.test(message);
  }
  return status === 401 && (isEmptyBody(body) || (body as { code?: unknown }).code === 'no_auth_header');
}

function isRefusal(status: unknown): boolean {
  return typeof status === 'number' && status >= 400 && status < 500;
}

const TARGET_ERRORS = new Set(['TargetFault', 'TransportError', 'ScenarioTimeoutError']);

/** Errors already turned into a verdict, by the rule they were recorded for. */
const recorded = new WeakMap<object, string>();

function nameOf(error: unknown): unknown {
  return (error as { name?: unknown } | null)?.name;
}

function isAssertion(error: unknown): error is Error & { actual?: unknown; expected?: unknown } {
  return nameOf(error) === 'AssertionError';
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}

/** A value computed from a missing field: undefined itself, or NaN (arithmetic on it). */
function fromMissing(value: unknown): boolean {
  return value === undefined || Number.isNaN(value);
}

/** What a default for a missing value gives (`?? null`, `?? []`): null, `''`, an empty array or object. */
function isEmptyValue(value: unknown): boolean {
  return value === null || value === '' || (typeof value === 'object' && Object.keys(value as object).length === 0);
}

/**
 * The stand-in a failed SHOULD check returns: awaiting it or ignoring it is fine; any other use
 * throws NeedsFailedCheck.
 */
function unusable(rule: string): never {
  const refuse = (): never => {
    throw new NeedsFailedCheck(rule);
  };
  return new Proxy(function failedCheck() {}, {
    // `then` is read when the stand-in resolves a promise (an async check): it is not a thenable.
    get: (_target, key) => (key === 'then' ? undefined : refuse()),
    has: refuse,
    set: refuse,
    ownKeys: refuse,
    getOwnPropertyDescriptor: refuse,
    apply: refuse,
    construct: refuse,
    getPrototypeOf: refuse,
  }) as never;
}

/** What the catalogue says about a rule that bears on its verdicts (spec/rules/rule.ts). */
export interface RuleFacts {
  readonly level: 'MUST' | 'SHOULD';
  /** Operations the rule constrains; empty: every operation (it owns none in particular). */
  readonly operations: readonly string[];
  /** Answer fields the rule is about (dot paths, `*` for any index): a missing one is the rule's own FAIL. */
  readonly fields?: readonly string[];
}

/** A precondition that rests on a documented operation a rule of its scenario owns. */
export interface PreconditionOverreachFinding {
  readonly precondition: string;
  readonly operation: string;
  /** The scenario's rules that own the operation. */
  readonly rules: readonly string[];
}

export interface RuleChecksOptions {
  /** The scenario's rules. */
  readonly declared: readonly string[];
  /** Every operation's shape rule (a declared one is decided by the client's wire-schema checks). */
  readonly shapeRules: ReadonlySet<string>;
  readonly evidence: () => readonly Exchange[];
  /** Whether an exchange is a call of a reference-only operation, and whether it reads or writes. */
  readonly referenceOperation?: (exchange: Exchange) => 'read' | 'write' | undefined;
  /** The documented operation an exchange called, if any (raw calls by their path). */
  readonly documentedOperation?: (exchange: Exchange) => string | undefined;
  /** The catalogue's facts of a rule; a rule it does not know is a MUST rule owning no operation. */
  readonly rules?: (rule: string) => RuleFacts | undefined;
}

/** How a scenario that threw ended, before the verdicts say more. */
export type StopKind = 'fail' | 'error' | 'blocked' | 'skip';

/** The verdicts of one scenario run; the scenario context feeds it, runScenario finishes it. */
export class RuleChecks {
  readonly #declared: readonly string[];
  readonly #shapeRules: ReadonlySet<string>;
  readonly #primary: string | undefined;
  readonly #evidence: () => readonly Exchange[];
  readonly #verdicts = new Map<string, RecordedVerdict>();
  readonly #referenceOperation: (exchange: Exchange) => 'read' | 'write' | undefined;
  readonly #documentedOperation: (exchange: Exchange) => string | undefined;
  readonly #facts: (rule: string) => RuleFacts | undefined;
  readonly #reliedOn = new Map<string, Set<string>>();
  readonly #missingReads: MissingRead[] = [];
  readonly #overreach: PreconditionOverreachFinding[] = [];
  /** Rules SKIP because their own operation was not served: which operation. */
  readonly #notServedOf = new Map<string, string>();
  /** Rules whose failed check the scenario went on from (SHOULD rules, own-field failures), in order. */
  readonly #wentOnFrom: string[] = [];
  /** Rules whose check failed on their own field missing from an answer (RuleDef.fields): the scenario goes on from them, whatever their level. */
  readonly #ownFieldFailures = new Set<string>();
  /** Success rules charged with a server fault (declared by the scenario or not), and how many faults each. */
  readonly #charged = new Map<string, number>();
  /** Per rule: what of it the scenario went on without asking, and why (`notVerified`). */
  readonly #unverified = new Map<string, string[]>();
  /** Sequence number of the last exchange already behind a finished check. */
  #mark = 0;
  /** How many missing reads were already behind a finished check. */
  #readsAtMark = 0;

  constructor(options: RuleChecksOptions) {
    this.#declared = options.declared;
    this.#shapeRules = options.shapeRules;
    this.#evidence = options.evidence;
    this.#referenceOperation = options.referenceOperation ?? (() => undefined);
    this.#documentedOperation = options.documentedOperation ?? (() => undefined);
    this.#facts = options.rules ?? (() => undefined);
    const ruleRules = options.declared.filter((rule) => !options.shapeRules.has(rule));
    this.#primary = ruleRules.length === 1 ? ruleRules[0] : undefined;
  }

  /** The rules a server fault was charged to (see "Server faults"). */
  get chargedRules(): readonly string[] {
    return [...this.#charged.keys()];
  }

  /**
   * A server fault met outside a rule check: ERROR of the success rule of the operation `exchange`
   * called (undefined when it called none of the table, e.g. the control plane: nothing is charged).
   * A rule already charged keeps its first message, with the count of faults charged to it.
   */
  chargeFault(exchange: Exchange, message: string): string | undefined {
    const rule = this.#documentedOperation(exchange) !== undefined ? CONVENTION_RULES.successStatus : this.#referenceOperation(exchange) !== undefined ? CONVENTION_RULES.successStatusSetup : undefined;
    if (rule === undefined) return undefined;
    const count = (this.#charged.get(rule) ?? 0) + 1;
    this.#charged.set(rule, count);
    const earlier = this.#verdicts.get(rule);
    if (earlier?.status === 'FAIL') return rule;
    const first = earlier?.status === 'ERROR' ? earlier : { status: 'ERROR' as const, message: `a server fault: ${message}`, seqs: [exchange.seq] };
    const more = count > 1 ? ` (and ${count - 1} more server fault(s) in this scenario)` : '';
    this.#verdicts.set(rule, { ...first, message: `${(first.message ?? '').replace(/ \(and \d+ more server fault\(s\) in this scenario\)$/, '')}${more}` });
    this.settled();
    return rule;
  }

  /**
   * The scenario goes on without asking part of `rule` (an operation the target does not serve, a
   * case whose nearest valid request was refused): if the rule ends PASS here, it is only partly
   * verified, and the report says what was left out.
   */
  notVerified(rule: string, what: string): void {
    if (!this.#declared.includes(rule)) throw new Error(`a scenario notes part of rule ${rule} unverified, which it does not declare (rules: ${this.#declared.join(', ')})`);
    this.#unverified.set(rule, [...(this.#unverified.get(rule) ?? []), what]);
  }

  /** Preconditions of this scenario that rest on an operation one of its rules owns. */
  get overreachingPreconditions(): readonly PreconditionOverreachFinding[] {
    return this.#overreach;
  }

  #level(rule: string): 'MUST' | 'SHOULD' {
    return this.#facts(rule)?.level ?? 'MUST';
  }

  #owns(rule: string, operation: string): boolean {
    return this.#facts(rule)?.operations.includes(operation) ?? false;
  }

  /**
   * Runs `assertion` as a check of `rule`: its failure FAILs `rule` (or makes it ERROR, SKIP or
   * BLOCKED, see above). A MUST rule's failure is rethrown to stop the scenario; a SHOULD rule's
   * returns a stand-in (see "SHOULD failures"). `asserted`: the exchange whose answer the check asserts.
   */
  check<R>(rule: string, assertion: () => R, asserted?: Exchange): R {
    if (!this.#declared.includes(rule)) throw new Error(`a check names rule ${rule}, which the scenario does not declare (rules: ${this.#declared.join(', ')})`);
    this.#noteReliedOn(rule, asserted);
    let value: R;
    try {
      value = assertion();
    } catch (error) {
      return this.#afterFailure(rule, error, asserted);
    }
    if (value instanceof Promise) {
      return value.then(
        (resolved: unknown) => {
          this.#passed(rule);
          return resolved;
        },
        (error: unknown) => this.#afterFailure(rule, error, asserted),
      ) as R;
    }
    this.#passed(rule);
    return value;
  }

  #afterFailure(rule: string, error: unknown, asserted: Exchange | undefined): never {
    const thrown = this.#failed(rule, error, asserted);
    const verdict = this.#verdicts.get(rule);
    const blockedBy = verdict?.status === 'BLOCKED' ? verdict.blockedBy : undefined;
    const goesOn = verdict?.status === 'FAIL' || (blockedBy !== undefined && (this.#shapeRules.has(blockedBy) || this.#wentOnFrom.includes(blockedBy)));
    const ownFailure = recorded.get(thrown as object) === rule && goesOn;
    if (ownFailure && (this.#level(rule) === 'SHOULD' || this.#ownFieldFailures.has(rule))) {
      if (!this.#wentOnFrom.includes(rule)) this.#wentOnFrom.push(rule);
      return unusable(rule);
    }
    throw thrown;
  }

  /** The reference-only operations this check of `rule` rests on: reads since the previous check, and the asserted answer. */
  #noteReliedOn(rule: string, asserted: Exchange | undefined): void {
    const reads = this.#sinceMark().filter((e) => this.#referenceOperation(e) === 'read');
    const relied = [...reads, ...(asserted !== undefined && this.#referenceOperation(asserted) !== undefined ? [asserted] : [])].map((e) => e.label);
    if (relied.length === 0) return;
    const set = this.#reliedOn.get(rule) ?? new Set<string>();
    for (const label of relied) set.add(label);
    this.#reliedOn.set(rule, set);
  }

  #sinceMark(): Exchange[] {
    return this.#evidence().filter((e) => e.seq > this.#mark);
  }

  /** What happened so far is behind a settled step (a precondition, a probe): later checks do not rest on it. */
  settled(): void {
    this.#mark = this.#lastSeq();
    this.#readsAtMark = this.#missingReads.length;
  }

  #passed(rule: string): void {
    if (!this.#verdicts.has(rule)) this.#verdicts.set(rule, { status: 'PASS' });
    this.settled();
  }

  /**
   * Assertions about state the scenario relies on but does not prove: a failure BLOCKS the rules
   * not yet decided, naming `what` (or the answer behind it). Refused (PreconditionOverreach) when it
   * rests on a documented operation a rule of the scenario owns (see above).
   */
  precondition<V>(what: string, assertion: () => V): V {
    // Checked before (so a precondition that holds is refused too) and after: an async one may call the target itself.
    this.#refuseOverreach(what);
    const readsBefore = this.#readsAtMark;
    const blocked = (error: unknown): never => {
      this.#refuseOverreach(what);
      if (!isAssertion(error)) throw error;
      const notServed = this.#sinceMark().find((e) => this.#isNotServed(e));
      if (notServed !== undefined) throw new SetupFailed(`${notServed.label} not served`, `${this.#notServedText(notServed)}, which precondition "${what}" reads`, notServed);
      const read = this.#missingReadBehind(error, readsBefore);
      if (read !== undefined) throw new SetupFailed(this.#shapeRuleOf(read), `${read.exchange.label} answered without ${read.path}, which precondition "${what}" reads: ${inOwnWords(error)}`, read.exchange);
      throw new SetupFailed(`precondition: ${what}`, `precondition "${what}" does not hold: ${inOwnWords(error)}`);
    };
    try {
      const value = assertion();
      if (!(value instanceof Promise)) {
        this.settled();
        return value;
      }
      return value.then((resolved: unknown) => {
        this.#refuseOverreach(what);
        this.settled();
        return resolved;
      }, blocked) as V;
    } catch (error) {
      return blocked(error);
    }
  }

  #refuseOverreach(what: string): void {
    for (const exchange of this.#sinceMark()) {
      const operation = this.#documentedOperation(exchange);
      if (operation === undefined) continue;
      const owners = this.#declared.filter((rule) => !this.#shapeRules.has(rule) && !this.#decided(rule) && this.#owns(rule, operation));
      if (owners.length === 0) continue;
      if (!this.#overreach.some((f) => f.precondition === what && f.operation === operation)) this.#overreach.push({ precondition: what, operation, rules: owners });
      throw new PreconditionOverreach(
        `suite defect: precondition "${what}" rests on ${operation} (exchange #${exchange.seq}), whose behaviour ${owners.join(', ')} of this scenario own: ` +
          'assert it as a check of the rule it proves (t.check), or read the state through a setup operation (see checks.ts, "Preconditions")',
      );
    }
  }

  /** Records the error against `rule` when it is the rule's own (an assertion, or a target fault during its check). */
  #failed(rule: string, error: unknown, asserted: Exchange | undefined): unknown {
    if (error === null || typeof error !== 'object' || recorded.has(error)) return error;
    const name = nameOf(error);
    const earlier = this.#verdicts.get(rule);
    if (isAssertion(error) || name === 'RouteNotServed') {
      // A rule that already FAILed (a SHOULD rule the scenario went on from) keeps its first FAIL.
      if (earlier?.status !== 'FAIL') this.#verdicts.set(rule, this.#verdictOfFailure(rule, error as Error & { actual?: unknown; expected?: unknown }, asserted));
    } else if (typeof name === 'string' && TARGET_ERRORS.has(name)) {
      if (earlier?.status !== 'FAIL') this.#verdicts.set(rule, { status: 'ERROR', message: (error as Error).message, seqs: this.#recentSeqs() });
    } else {
      return error;
    }
    recorded.set(error, rule);
    this.settled();
    return error;
  }

  /** A failed assertion of `rule` (or a check that met a route not served): FAIL, or SKIP/BLOCKED when it is not the rule's deviation. */
  #verdictOfFailure(rule: string, error: Error & { actual?: unknown; expected?: unknown }, asserted: Exchange | undefined): RecordedVerdict {
    const behind = asserted !== undefined ? [asserted] : this.#sinceMark();
    const notServed = behind.find((e) => this.#isNotServed(e));
    if (notServed !== undefined) {
      const operation = this.#documentedOperation(notServed) ?? notServed.label;
      if (this.#owns(rule, operation)) this.#notServedOf.set(rule, operation);
      return this.#owns(rule, operation)
        ? { status: 'SKIP', message: `${this.#notServedText(notServed)}, the operation ${rule} is about`, seqs: [notServed.seq] }
        : { status: 'BLOCKED', blockedBy: `${operation} not served`, message: `${this.#notServedText(notServed)}, which this check of ${rule} asked through`, seqs: [notServed.seq] };
    }
    const read = isAssertion(error) ? this.#missingReadBehind(error, this.#readsAtMark) : undefined;
    if (read !== undefined && !this.#isOwnField(rule, read)) {
      const message = `${read.exchange.label} (exchange #${read.exchange.seq}) answered without ${read.path}, which this check of ${rule} compared: ${inOwnWords(error)}`;
      return { status: 'BLOCKED', blockedBy: this.#shapeRuleOf(read), message, seqs: [read.exchange.seq] };
    }
    const operands = {
      ...('expected' in error ? { expected: printable(error.expected) } : {}),
      ...('actual' in error ? { actual: printable(error.actual) } : {}),
      seqs: this.#recentSeqs(),
    };
    // The rule's own field missing from an answer is a fact of that answer, whatever failed before.
    if (read !== undefined) {
      this.#ownFieldFailures.add(rule);
      return { status: 'FAIL', message: inOwnWords(error), ...operands };
    }
    // After a SHOULD failure the scenario went on from, what it set up may not be what later steps assume.
    const earlierShould = this.#wentOnFrom.find((should) => should !== rule);
    if (earlierShould !== undefined) {
      return { status: 'BLOCKED', blockedBy: earlierShould, message: `after ${earlierShould} failed, this check of ${rule} failed too, maybe as its knock-on: ${inOwnWords(error)}`, ...operands };
    }
    return { status: 'FAIL', message: inOwnWords(error), ...operands };
  }

  #isNotServed(exchange: Exchange): boolean {
    return exchange.response !== undefined && !exchange.label.startsWith('control:') && isRouteNotServed(exchange.response.status, exchange.response.body);
  }

  #notServedText(exchange: Exchange): string {
    const body = exchange.response?.body;
    const shown = isEmptyBody(body) ? 'with an empty body' : JSON.stringify(body)?.slice(0, 160) ?? '';
    return `the target does not serve ${this.#documentedOperation(exchange) ?? exchange.label} (exchange #${exchange.seq} answered ${exchange.response?.status} ${shown}, as an unknown route)`;
  }

  #shapeRuleOf(read: MissingRead): string {
    return read.exchange.shapeRule ?? `${read.exchange.label} shape`;
  }

  /** Whether the missing path is a field the rule itself is about, in an answer of an operation it owns: its own deviation. */
  #isOwnField(rule: string, read: MissingRead): boolean {
    const facts = this.#facts(rule);
    if (facts?.fields === undefined || !facts.operations.includes(read.exchange.label)) return false;
    return facts.fields.some((field) => new RegExp(`^${field.split('.').map((step) => (step === '*' ? '\\d+' : step.replace(/[^\w]/g, '\\$&'))).join('\\.')}(\\..*)?$`).test(read.path));
  }

  /**
   * The left-out field that explains a failed assertion, if one does: the value it compared IS the
   * missing path, or lies under it. Every value it found different must be absent on one side
   * (undefined or NaN; on the side seen also null, `''`, `[]` or `{}`, what a default for a missing
   * value gives), and:
   * - it compared (part of) an answer that left fields out, or a copy of one (a spread, a rest
   *   pattern), and every difference lies at or under one of that answer's missing paths
   *   (`expect(plan).toEqual({…, version_slug: 'v1'})`);
   * - or the scenario read a missing path since `from` (the previous check): `expect(plan.version_slug).toBe('v1')`,
   *   `expect(plan.price?.additional_currencies ?? []).toEqual([…])`;
   * - or every difference is undefined on the expected side, an expectation the scenario computed
   *   earlier from a missing field (`names.get(id)` of plans created at the start): the latest read.
   * An assertion whose operands show no difference (`expect.fail`, chai on an undefined target, a
   * key present on one side only) is explained by a read since the previous check, else the latest.
   * A value seen where the expectation holds nothing (an extra element where `[]` was expected) is
   * never taken for a missing field, nor is an undefined value seen without such a read.
   */
  #missingReadBehind(error: Error & { actual?: unknown; expected?: unknown }, from: number): MissingRead | undefined {
    const latest = this.#missingReads.filter((r) => r.kind === 'read').at(-1);
    const inWindow = this.#missingReads.slice(from).filter((r) => r.kind === 'read').at(-1);
    const differences = 'actual' in error ? differencesOf(error.actual, error.expected) : [];
    if (differences.length === 0) return inWindow ?? latest;
    if (!differences.every((d) => fromMissing(d.actual) || fromMissing(d.expected) || isEmptyValue(d.actual))) return undefined;
    const under = (exchange: Exchange, at: string): MissingRead | undefined => {
      const missing = missingPaths(exchange);
      const paths = differences.map((d) => [at, dotPath(d.path)].filter((p) => p !== '').join('.'));
      return paths.every((path) => missing.some((m) => path === m || path.startsWith(`${m}.`))) ? { kind: 'read', exchange, path: paths[0]! } : undefined;
    };
    for (const side of [error.actual, error.expected]) {
      const place = watchedPlace(side);
      const found = place && under(place.exchange, place.path);
      if (found) return found;
    }
    for (const copy of this.#missingReads.filter((r) => r.kind === 'copy').reverse()) {
      const found = under(copy.exchange, copy.path);
      if (found) return found;
    }
    return inWindow ?? (differences.every((d) => d.expected === undefined) ? latest : undefined);
  }

  /** A 200's body, watched for reads of the fields it left out (missing-reads.ts); other bodies as they are. */
  watched<B>(body: B, exchange: Exchange): B {
    return watchMissing(body, exchange, (read) => this.#missingReads.push(read));
  }

  /**
   * A request about to be sent holds undefined values (`plan_id: plan.id` where the answer had no
   * `id`): when the scenario read a field some 200 left out, the request was built from it, and its
   * answer says nothing about any rule. Throws an error that BLOCKS on that 200's shape rule; nothing is sent.
   */
  refuseRequestBuiltFromMissingField(operation: string, request: unknown): void {
    const holes = pathsFromMissing(request);
    const read = holes.length > 0 ? this.#missingReads.filter((r) => r.kind === 'read').at(-1) : undefined;
    if (read === undefined) return;
    throw new SetupFailed(this.#shapeRuleOf(read), `${operation} was not sent: its ${holes.join(', ')} would come from ${read.path}, which ${read.exchange.label} (exchange #${read.exchange.seq}) left out`, read.exchange);
  }

  /**
   * The calls behind this assertion: the exchanges since the previous check ended (at most 3, the
   * latest), or the latest exchange when the check made none (it reads an answer already received).
   */
  #recentSeqs(): number[] {
    const evidence = this.#evidence();
    const fresh = evidence.filter((e) => e.seq > this.#mark).slice(-3);
    return (fresh.length > 0 ? fresh : evidence.slice(-1)).map((e) => e.seq);
  }

  #lastSeq(): number {
    return this.#evidence().at(-1)?.seq ?? this.#mark;
  }

  /**
   * The scenario threw `error`: classifies it and settles every rule not yet decided. Returns how
   * the scenario ended and, for a skip, why.
   */
  stop(error: unknown): { readonly kind: StopKind; readonly reason?: string } {
    const undecided = (verdict: RecordedVerdict) => this.#settleUndecided(verdict);
    const ownRule = error !== null && typeof error === 'object' ? recorded.get(error) : undefined;
    if (ownRule !== undefined) {
      const own = this.#verdicts.get(ownRule)!;
      if (own.status === 'SKIP') {
        // The rule's own operation is not served: the others were not reached because of it.
        const operation = this.#notServedOf.get(ownRule) ?? 'its operation';
        undecided({ status: 'BLOCKED', blockedBy: `${operation} not served`, message: `not reached: ${own.message ?? ''}`, ...(own.seqs ? { seqs: own.seqs } : {}) });
        this.#verdicts.set(ownRule, own);
        return { kind: 'skip', reason: own.message ?? 'not served' };
      }
      if (own.status === 'BLOCKED') {
        undecided({ ...own, message: `not reached: ${own.message ?? ''}` });
        this.#verdicts.set(ownRule, own);
        return { kind: 'blocked' };
      }
      undecided({ status: 'BLOCKED', blockedBy: ownRule, message: `not reached: ${ownRule} ${own.status === 'FAIL' ? 'failed' : 'could not be checked'} first` });
      return { kind: own.status === 'FAIL' ? 'fail' : 'error' };
    }
    if (error instanceof NeedsFailedCheck) {
      undecided({ status: 'BLOCKED', blockedBy: error.rule, message: `not reached: the scenario needed the result of the check of ${error.rule}, which failed` });
      return { kind: 'fail' };
    }
    if (error instanceof SetupFailed) {
      undecided({ status: 'BLOCKED', blockedBy: error.step, message: error.message, ...(error.exchange ? { seqs: [error.exchange.seq] } : {}) });
      return { kind: 'blocked' };
    }
    // The control plane refusing to set up a state (force a record's status, move the clock) is a setup step that failed.
    if (nameOf(error) === 'ControlPlaneError' && isRefusal((error as { status?: unknown }).status)) {
      const exchange = (error as { exchange?: Exchange }).exchange;
      undecided({ status: 'BLOCKED', blockedBy: `setup ${exchange?.label ?? 'control plane'}`, message: firstLine(error), ...(exchange ? { seqs: [exchange.seq] } : {}) });
      return { kind: 'blocked' };
    }
    if (error instanceof SetupNotServed) {
      undecided({ status: 'SKIP', message: error.message });
      return { kind: 'skip', reason: error.message };
    }
    const name = nameOf(error);
    if (isServerFault(error)) {
      const charged = this.chargeFault(error.exchange, firstLine(error));
      if (charged !== undefined) {
        undecided({ status: 'BLOCKED', blockedBy: charged, message: `not reached: ${firstLine(error)}`, seqs: [error.exchange.seq] });
        return { kind: 'error' };
      }
    }
    if (error instanceof TransportError || (typeof name === 'string' && TARGET_ERRORS.has(name))) {
      const exchange = (error as { exchange?: Exchange }).exchange;
      undecided({ status: 'ERROR', message: firstLine(error), ...(exchange ? { seqs: [exchange.seq] } : {}) });
      return { kind: 'error' };
    }
    if (error instanceof PreconditionOverreach) {
      undecided({ status: 'ERROR', message: error.message });
      return { kind: 'error' };
    }
    const wentOnFrom = this.#wentOnFrom.at(-1);
    if (isAssertion(error)) {
      if (this.#primary !== undefined && !this.#decided(this.#primary)) {
        this.#failed(this.#primary, error, undefined);
        const primary = this.#verdicts.get(this.#primary);
        if (primary?.status === 'FAIL') undecided({ status: 'BLOCKED', blockedBy: this.#primary, message: `not reached: ${this.#primary} failed first` });
        else undecided({ ...primary!, message: `not reached: ${primary?.message ?? ''}` });
        if (primary !== undefined) this.#verdicts.set(this.#primary, primary);
      } else if (wentOnFrom !== undefined) {
        undecided({ status: 'BLOCKED', blockedBy: wentOnFrom, message: `not reached: an assertion attributed to no rule failed after ${wentOnFrom} failed: ${firstLine(error)}` });
      } else {
        undecided({ status: 'BLOCKED', blockedBy: 'an unattributed assertion', message: `not reached: an assertion attributed to no rule failed: ${firstLine(error)}` });
      }
      return { kind: 'fail' };
    }
    const read = this.#missingReads.filter((r) => r.kind === 'read').at(-1);
    if (read !== undefined) {
      undecided({ status: 'BLOCKED', blockedBy: this.#shapeRuleOf(read), message: `${read.exchange.label} (exchange #${read.exchange.seq}) answered without ${read.path}, which the scenario reads: ${firstLine(error)}`, seqs: [read.exchange.seq] });
      return { kind: 'blocked' };
    }
    if (wentOnFrom !== undefined) {
      undecided({ status: 'BLOCKED', blockedBy: wentOnFrom, message: `not reached: the scenario broke after ${wentOnFrom} failed, most likely on what that check found: ${firstLine(error)}` });
      return { kind: 'fail' };
    }
    const broken = this.#evidence().find((e) => (e.schemaIssues?.length ?? 0) > 0);
    if (broken?.shapeRule !== undefined) {
      const paths = broken.schemaIssues!.map((i) => i.path || '(root)').join(', ');
      undecided({
        status: 'BLOCKED',
        blockedBy: broken.shapeRule,
        message: `${broken.label} (exchange #${broken.seq}) answered what the scenario could not read (${paths}): ${firstLine(error)}`,
        seqs: [broken.seq],
      });
      return { kind: 'blocked' };
    }
    undecided({ status: 'ERROR', message: `the scenario crashed: ${firstLine(error)}` });
    return { kind: 'error' };
  }

  #decided(rule: string): boolean {
    const status = this.#verdicts.get(rule)?.status;
    return status === 'FAIL' || status === 'ERROR';
  }

  /**
   * Every declared non-shape rule not yet FAIL or ERROR gets `verdict` (a passing rule too: its later
   * checks never ran), except that a rule owning an operation the target did not serve is SKIP.
   */
  #settleUndecided(verdict: RecordedVerdict): void {
    const notServed = this.#evidence().filter((e) => this.#isNotServed(e));
    for (const rule of this.#declared) {
      if (this.#shapeRules.has(rule) || this.#decided(rule)) continue;
      const own = notServed.find((e) => this.#owns(rule, this.#documentedOperation(e) ?? e.label));
      this.#verdicts.set(rule, own === undefined ? verdict : { status: 'SKIP', message: `${this.#notServedText(own)}, the operation ${rule} is about`, seqs: [own.seq] });
    }
  }

  /**
   * The verdict of every declared rule, and of every shape rule a 200 of the scenario exercised.
   * Call after the scenario ended (normally or through `stop`); `stopped` tells which. A check's
   * explicit verdict on a shape rule stands against the wire-schema verdict when it is the higher.
   */
  results(stopped: boolean): Record<string, RecordedVerdict> {
    const out: Record<string, RecordedVerdict> = {};
    for (const rule of this.#declared) {
      if (this.#shapeRules.has(rule)) continue;
      const relied = this.#reliedOn.get(rule);
      const verdict = this.#verdicts.get(rule) ?? { status: 'PASS' };
      const unverified = verdict.status === 'PASS' ? this.#unverified.get(rule) : undefined;
      out[rule] = { ...verdict, ...(relied ? { referenceOperations: [...relied].sort() } : {}), ...(unverified ? { unverified: [...unverified] } : {}) };
    }
    for (const [rule, verdict] of shapeVerdicts(this.#evidence())) {
      const explicit = this.#verdicts.get(rule);
      out[rule] = explicit !== undefined && outranks(explicit.status, verdict.status) ? explicit : verdict;
    }
    // A success rule charged with a server fault is ERROR here, declared or not.
    for (const rule of this.#charged.keys()) {
      if (out[rule]?.status !== 'FAIL') out[rule] = this.#verdicts.get(rule)!;
    }
    const notServed = this.#evidence().filter((e) => this.#isNotServed(e));
    for (const rule of this.#declared) {
      if (out[rule] !== undefined) continue;
      const explicit = this.#verdicts.get(rule);
      // A shape rule whose own operation answered as an unknown route is SKIP, as any rule is (see "Not served").
      const own = notServed.find((e) => this.#owns(rule, this.#documentedOperation(e) ?? e.label));
      out[rule] =
        explicit !== undefined && explicit.status !== 'PASS'
          ? explicit
          : own !== undefined
            ? { status: 'SKIP', message: `${this.#notServedText(own)}, the operation ${rule} is about`, seqs: [own.seq] }
            : stopped
            ? { status: 'BLOCKED', blockedBy: this.#stoppedBy(out) ?? 'the scenario stopping', message: 'no 200 answer of its operation was reached' }
            : { status: 'BLOCKED', blockedBy: 'the scenario', message: 'the scenario declares this shape rule but no 200 answer of its operation was checked' };
    }
    return out;
  }

  #stoppedBy(results: Record<string, RecordedVerdict>): string | undefined {
    return Object.values(results).find((v) => v.blockedBy !== undefined)?.blockedBy;
  }
}

/** Paths of the values of a request body computed from a missing field (JSON drops undefined and sends NaN as null). */
function pathsFromMissing(value: unknown, path = ''): string[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const at = path === '' ? key : `${path}.${key}`;
    return fromMissing(inner) ? [at] : pathsFromMissing(inner, at);
  });
}

/**
 * Shape rule → verdict of the wire-schema checks of every 200 in `evidence`: FAIL (first failing
 * answer, its paths) or PASS; and the spelling rule's verdict over every answer carrying a field
 * the document spells in camelCase: FAIL (first answer mixing both spellings, where) or PASS.
 */
export function shapeVerdicts(evidence: readonly Exchange[]): Map<string, RecordedVerdict> {
  const out = new Map<string, RecordedVerdict>();
  for (const exchange of evidence) {
    if (exchange.spellings !== undefined && out.get(CONVENTION_RULES.spelling)?.status !== 'FAIL') {
      const mixed = exchange.mixedSpellings ?? [];
      out.set(
        CONVENTION_RULES.spelling,
        mixed.length === 0
          ? { status: 'PASS' }
          : {
              status: 'FAIL',
              message: `${exchange.label}: one answer uses both the documented camelCase and the snake_case wire spelling: ${mixed.slice(0, 10).join(', ')}${mixed.length > 10 ? `, … and ${mixed.length - 10} more` : ''}`,
              actual: mixed,
              seqs: [exchange.seq],
            },
      );
    }
    const rule = exchange.shapeRule;
    if (rule === undefined || out.get(rule)?.status === 'FAIL') continue;
    const issues = exchange.schemaIssues ?? [];
    if (issues.length === 0) {
      out.set(rule, { status: 'PASS' });
      continue;
    }
    const listed = issues.slice(0, 10).map((i) => `${i.path === '' ? '(root)' : i.path}: ${i.message}`);
    out.set(rule, {
      status: 'FAIL',
      // No IDs in the message: the same deviation reads the same in every scenario, so a report shows it once.
      message: `${exchange.label}: the 200 answer does not match its schema: ${listed.join('; ')}${issues.length > 10 ? `; … and ${issues.length - 10} more` : ''}`,
      actual: issues.map((i) => i.path),
      seqs: [exchange.seq],
    });
  }
  return out;
}

/**
 * Conventions every operation's answer rests on. A check of another rule whose answer breaks one of
 * them did not test its own rule, so the deviation is the convention's rule's, never the checked one's:
 * - a success answered with a 2xx other than 200 (`expectOk`): ERR-SUCCESS-200 for documented
 *   operations, ERR-SUCCESS-200-SETUP for the reference's setup operations;
 * - an error code asserted on a body that is not `{message, code, env}` (`expectError` with `code`):
 *   ERR-BODY-SHAPE (the refusal itself is still the checked rule's);
 * - a target that refuses the run's x-api-version, or does not read JSON bodies (`ConventionBreach`,
 *   probed once per target when some rule first FAILs): every FAIL of another rule becomes BLOCKED.
 */
export const CONVENTION_RULES = {
  successStatus: 'ERR-SUCCESS-200',
  successStatusSetup: 'ERR-SUCCESS-200-SETUP',
  errorBody: 'ERR-BODY-SHAPE',
  jsonBodies: 'CONV-POST-JSON',
  versionHeader: ['AUTH-API-VERSION-HEADER', 'VER-2-4-0-ACCEPTED'],
  /** Decided, like a shape rule, by every answer carrying a field the document spells in camelCase (`mixedSpellings`). */
  spelling: 'CONV-CONSISTENT-SPELLING',
} as const;

/** A convention the whole target breaks, so that no FAIL of another rule can be trusted. */
export interface ConventionBreach {
  /** What the other rules' FAILs become BLOCKED by. */
  readonly blockedBy: string;
  /** The rules whose FAIL stands: the convention's own. */
  readonly rules: readonly string[];
  readonly message: string;
}

/** One answer of the convention probe: the same read, once naming a record and once with an empty body. */
export interface ProbeAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly text: string;
}

/**
 * What two answers of one documented read tell about the conventions: a 4xx (not 404) naming the
 * version refuses the run's x-api-version; the same 4xx, byte for byte, to a body naming a record
 * and to an empty body says the body was never read. Anything else (a 404 for the unknown record,
 * different refusals, a route not served) shows no breach. Only a certain breach counts: a missed
 * one leaves FAILs standing, a wrong one would hide them.
 */
export function conventionBreachOf(named: ProbeAnswer, empty: ProbeAnswer, apiVersion: string): ConventionBreach | undefined {
  const refused = (a: ProbeAnswer) => a.status >= 400 && a.status < 500 && !isRouteNotServed(a.status, a.body);
  if (refused(named) && named.status !== 404 && /version/i.test(named.text)) {
    return {
      blockedBy: `x-api-version ${apiVersion} refused`,
      rules: CONVENTION_RULES.versionHeader,
      message: `the target refuses requests carrying x-api-version ${apiVersion} (${named.status} ${named.text.slice(0, 160)}), so no other rule was asked`,
    };
  }
  if (refused(named) && refused(empty) && named.status === empty.status && named.text === empty.text) {
    return {
      blockedBy: CONVENTION_RULES.jsonBodies,
      rules: [CONVENTION_RULES.jsonBodies],
      message: `the target answers a read naming a record exactly as the same read with an empty body (${named.status} ${named.text.slice(0, 160)}): it does not read JSON bodies, so no other rule was asked`,
    };
  }
  return undefined;
}

/**
 * The verdicts once a convention breach is known: a FAIL of a rule that is not the convention's
 * becomes BLOCKED by the breach, and so does a rule BLOCKED by such a FAIL.
 */
export function gateOnConvention(verdicts: Readonly<Record<string, RecordedVerdict>>, breach: ConventionBreach): Record<string, RecordedVerdict> {
  const gated = new Set(Object.entries(verdicts).filter(([rule, v]) => v.status === 'FAIL' && !breach.rules.includes(rule)).map(([rule]) => rule));
  const blocked: RecordedVerdict = { status: 'BLOCKED', blockedBy: breach.blockedBy, message: breach.message };
  return Object.fromEntries(
    Object.entries(verdicts).map(([rule, v]) => {
      const byGated = v.status === 'BLOCKED' && v.blockedBy !== undefined && gated.has(v.blockedBy);
      return [rule, gated.has(rule) || byGated ? { ...blocked, ...(v.referenceOperations ? { referenceOperations: v.referenceOperations } : {}) } : v];
    }),
  );
}

/** Verdicts with exchange sequence numbers turned into indices of `reported` (those not reported are dropped). */
export function toRuleResults(verdicts: Readonly<Record<string, RecordedVerdict>>, reported: readonly Exchange[]): Record<string, RuleResult> {
  const index = new Map(reported.map((e, i) => [e.seq, i]));
  return Object.fromEntries(
    Object.entries(verdicts).map(([rule, { seqs, referenceOperations: _, ...verdict }]) => {
      const exchanges = (seqs ?? []).flatMap((seq) => (index.has(seq) ? [index.get(seq)!] : []));
      return [rule, exchanges.length > 0 ? { ...verdict, exchanges } : verdict];
    }),
  );
}
