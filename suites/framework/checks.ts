/**
 * Per-rule verdicts of one scenario run (DESIGN.md decision 7). Every assertion names the rule it
 * proves; a failed assertion fails exactly that rule, and the rules it stopped the scenario before
 * reaching are BLOCKED, naming what stopped them.
 *
 * How an assertion finds its rule (see ScenarioContext in scenario.ts):
 * - `t.check(RULE, () => expect(…)…)`, `t.expectOk(result, RULE)`, `t.expectError(result, { rule: RULE })`:
 *   attributed; a failure FAILs RULE and stops the scenario.
 * - Wire-schema checks of 200 answers are attributed to the operation's shape rule by the client;
 *   they record, they never stop the scenario (the scenario goes on with the raw body).
 * - An unattributed assertion (plain `expect`, `t.expectOk(result)`): in a scenario with exactly one
 *   rule that is not a shape rule (its *primary* rule), it is that rule's. In a scenario with
 *   several, it fails no rule: the safest reading of an assertion nobody attributed is that its rule
 *   is unknown, so the rules not yet decided become BLOCKED by "an unattributed assertion" and the
 *   scenario's test still fails (status `fail`), so the author sees it and attributes it.
 *
 * What a thrown error makes of the rules not yet decided (a rule is decided once it FAILed or was
 * ERROR; a rule whose checks passed so far is not decided until the scenario ends):
 * - assertion of rule R → R FAIL; the others BLOCKED by R;
 * - SetupFailed (a call that only builds state was refused) → BLOCKED by `setup <operation>`;
 * - SetupNotServed (the target has no such route) → SKIP with the reason;
 * - TargetFault (5xx, 429 beyond the retry budget), TransportError (network, timeout), a scenario
 *   timeout, an answer that is not JSON → ERROR, of R when inside R's check (the others BLOCKED by
 *   R), else of every undecided rule; never FAIL;
 * - any other error (a TypeError reading a field) after a 200 failed its wire schema → BLOCKED by
 *   that shape rule (a field the scenario needs is missing); without such a 200 → ERROR (a bug);
 * - an assertion of R that fails only where a field some 200 left out is missing (every differing
 *   value is undefined) → R BLOCKED by that shape rule, not FAIL: one missing field, one FAIL.
 * A scenario that ends without a thrown error: every declared rule not FAILed is PASS, except a
 * declared shape rule no 200 exercised, which is BLOCKED.
 *
 * Across scenarios a rule takes the highest status: FAIL > ERROR > PASS > BLOCKED > SKIP
 * (`aggregateRuleStatus`).
 */
import type { Exchange } from './evidence.ts';
import { TransportError } from './http.ts';

export type RuleStatus = 'PASS' | 'FAIL' | 'BLOCKED' | 'SKIP' | 'ERROR';

/** One rule's verdict in one scenario (the shared contract with the reports, COMMON.md §1). */
export interface RuleResult {
  readonly status: RuleStatus;
  readonly message?: string;
  /** BLOCKED: the rule or setup step that stopped the scenario before this rule was decided. */
  readonly blockedBy?: string;
  /** FAIL: the failing assertion's operands. */
  readonly expected?: unknown;
  readonly actual?: unknown;
  /** Indices into the scenario's reported evidence (`ScenarioMeta.evidence`) of the exchanges behind the verdict. */
  readonly exchanges?: readonly number[];
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

/** A rule's status across scenarios: the highest of FAIL > ERROR > PASS > BLOCKED > SKIP; undefined for none. */
export function aggregateRuleStatus(statuses: Iterable<RuleStatus>): RuleStatus | undefined {
  let highest: RuleStatus | undefined;
  for (const status of statuses) {
    if (highest === undefined || PRECEDENCE.indexOf(status) > PRECEDENCE.indexOf(highest)) highest = status;
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

/** Statuses that say nothing about the rule under test: the target is failing or rate limiting. */
export function isTargetFault(status: number): boolean {
  return status >= 500 || status === 429;
}

/**
 * Whether a refusal says the target has no such route (rather than refusing the request): 404, 405
 * or 501 without the `…_not_found` code of a missing record (`route_not_found` is the fake's
 * missing route), or a 401 with an empty body, which is how the reference answers an unknown path
 * after it accepted the key (preflight checked the key).
 */
export function isRouteNotServed(status: number, body: unknown): boolean {
  const code = (body as { code?: unknown } | null)?.code;
  const missingRecord = typeof code === 'string' && code.endsWith('_not_found') && code !== 'route_not_found';
  if (status === 404 || status === 405 || status === 501) return !missingRecord;
  return status === 401 && (body === undefined || body === '' || (typeof body === 'object' && body !== null && Object.keys(body).length === 0));
}

const TARGET_ERRORS = new Set(['TargetFault', 'TransportError', 'ScenarioTimeoutError']);

/** Errors already turned into a verdict, by the rule they were recorded for. */
const recorded = new WeakMap<object, string>();

function isAssertion(error: unknown): error is Error & { actual?: unknown; expected?: unknown } {
  return (error as { name?: unknown } | null)?.name === 'AssertionError';
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
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
  readonly #referenceOperations: (exchange: Exchange) => 'read' | 'write' | undefined;
  readonly #reliedOn = new Map<string, Set<string>>();
  /** Sequence number of the last exchange already behind a finished check. */
  #mark = 0;

  /**
   * @param declared the scenario's rules
   * @param shapeRules every operation's shape rule (a declared one is decided by the client's wire-schema checks)
   * @param referenceOperation whether an exchange is a call of a reference-only operation, and whether it reads or writes
   */
  constructor(
    declared: readonly string[],
    shapeRules: ReadonlySet<string>,
    evidence: () => readonly Exchange[],
    referenceOperation: (exchange: Exchange) => 'read' | 'write' | undefined = () => undefined,
  ) {
    this.#declared = declared;
    this.#shapeRules = shapeRules;
    this.#evidence = evidence;
    this.#referenceOperations = referenceOperation;
    const ruleRules = declared.filter((rule) => !shapeRules.has(rule));
    this.#primary = ruleRules.length === 1 ? ruleRules[0] : undefined;
  }

  /**
   * Runs `assertion` as a check of `rule`: its failure FAILs `rule` (or makes it ERROR) and is
   * rethrown to stop the scenario. `asserted`: the exchange whose answer the check asserts.
   */
  check<R>(rule: string, assertion: () => R, asserted?: Exchange): R {
    if (!this.#declared.includes(rule)) throw new Error(`a check names rule ${rule}, which the scenario does not declare (rules: ${this.#declared.join(', ')})`);
    this.#noteReliedOn(rule, asserted);
    let value: R;
    try {
      value = assertion();
    } catch (error) {
      throw this.#failed(rule, error);
    }
    if (value instanceof Promise) {
      return value.then(
        (resolved: unknown) => {
          this.#passed(rule);
          return resolved;
        },
        (error: unknown) => {
          throw this.#failed(rule, error);
        },
      ) as R;
    }
    this.#passed(rule);
    return value;
  }

  /** The reference-only operations this check of `rule` rests on: reads since the previous check, and the asserted answer. */
  #noteReliedOn(rule: string, asserted: Exchange | undefined): void {
    const reads = this.#evidence().filter((e) => e.seq > this.#mark && this.#referenceOperations(e) === 'read');
    const relied = [...reads, ...(asserted !== undefined && this.#referenceOperations(asserted) !== undefined ? [asserted] : [])].map((e) => e.label);
    if (relied.length === 0) return;
    const set = this.#reliedOn.get(rule) ?? new Set<string>();
    for (const label of relied) set.add(label);
    this.#reliedOn.set(rule, set);
  }

  /** What happened so far is behind a settled step (a precondition): later checks do not rest on it. */
  settled(): void {
    this.#mark = this.#lastSeq();
  }

  #passed(rule: string): void {
    if (!this.#verdicts.has(rule)) this.#verdicts.set(rule, { status: 'PASS' });
    this.#mark = this.#lastSeq();
  }

  /** Records the error against `rule` when it is the rule's own (an assertion, or a target fault during its check). */
  #failed(rule: string, error: unknown): unknown {
    if (error === null || typeof error !== 'object' || recorded.has(error)) return error;
    const name = (error as { name?: unknown }).name;
    const missing = isAssertion(error) ? this.#explainedByMissingField(error) : undefined;
    if (missing !== undefined) {
      this.#verdicts.set(rule, { status: 'BLOCKED', blockedBy: missing.shapeRule!, message: `${missing.label} answered without ${missingFields(missing).join(', ')}, which this check of ${rule} reads: ${firstLine(error)}`, seqs: [missing.seq] });
    } else if (isAssertion(error)) {
      this.#verdicts.set(rule, {
        status: 'FAIL',
        message: error.message,
        ...('expected' in error ? { expected: error.expected } : {}),
        ...('actual' in error ? { actual: error.actual } : {}),
        seqs: this.#recentSeqs(),
      });
    } else if (typeof name === 'string' && TARGET_ERRORS.has(name)) {
      this.#verdicts.set(rule, { status: 'ERROR', message: (error as Error).message, seqs: this.#recentSeqs() });
    } else {
      return error;
    }
    recorded.set(error, rule);
    this.#mark = this.#lastSeq();
    return error;
  }

  /** The first 200 of the scenario so far that left out a required field (its shape rule FAILs). */
  answerMissingAField(): Exchange | undefined {
    return this.#evidence().find((e) => e.shapeRule !== undefined && missingFields(e).length > 0);
  }

  /**
   * A request about to be sent holds undefined values (`plan_id: plan.id` where the answer had no
   * `id`): when an earlier 200 left out a field, the request was built from it, and its answer says
   * nothing about any rule. Throws an error that BLOCKS on that 200's shape rule; nothing is sent.
   */
  refuseRequestBuiltFromMissingField(operation: string, request: unknown): void {
    const holes = pathsFromMissing(request);
    const broken = holes.length > 0 ? this.answerMissingAField() : undefined;
    if (broken === undefined) return;
    throw new SetupFailed(broken.shapeRule!, `${operation} was not sent: its ${holes.join(', ')} would come from what ${broken.label} left out (${missingFields(broken).join(', ')})`, broken);
  }

  /**
   * The 200 (of the scenario so far) that left out a required field, when that explains the failed
   * assertion: every value the assertion found different from what it expected is missing. One
   * missing field is one FAIL, of the answer's shape rule; the checks that read the field are
   * BLOCKED by it, not failed (issue 7).
   */
  #explainedByMissingField(error: { actual?: unknown; expected?: unknown }): Exchange | undefined {
    const broken = this.answerMissingAField();
    if (broken === undefined) return undefined;
    // chai's length and property assertions on an undefined target carry no operands.
    if (!('actual' in error)) return /Target cannot be null or undefined/.test((error as Error).message) ? broken : undefined;
    if (fromMissing(error.actual)) return broken;
    // No difference at all: the assertion failed only on a key holding undefined (toMatchObject).
    return differences(error.actual, error.expected).every((isMissing) => isMissing) ? broken : undefined;
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
      if (own.status === 'BLOCKED') {
        undecided({ ...own, message: `not reached: ${own.message ?? ''}` });
        this.#verdicts.set(ownRule, own);
        return { kind: 'blocked' };
      }
      undecided({ status: 'BLOCKED', blockedBy: ownRule, message: `not reached: ${ownRule} ${own.status === 'FAIL' ? 'failed' : 'could not be checked'} first` });
      return { kind: own.status === 'FAIL' ? 'fail' : 'error' };
    }
    if (error instanceof SetupFailed) {
      undecided({ status: 'BLOCKED', blockedBy: error.step, message: error.message, ...(error.exchange ? { seqs: [error.exchange.seq] } : {}) });
      return { kind: 'blocked' };
    }
    if (error instanceof SetupNotServed) {
      undecided({ status: 'SKIP', message: error.message });
      return { kind: 'skip', reason: error.message };
    }
    const name = (error as { name?: unknown } | null)?.name;
    if (error instanceof TransportError || (typeof name === 'string' && TARGET_ERRORS.has(name))) {
      const exchange = (error as { exchange?: Exchange }).exchange;
      undecided({ status: 'ERROR', message: firstLine(error), ...(exchange ? { seqs: [exchange.seq] } : {}) });
      return { kind: 'error' };
    }
    if (isAssertion(error)) {
      if (this.#primary !== undefined && !this.#decided(this.#primary)) {
        this.#failed(this.#primary, error);
        undecided({ status: 'BLOCKED', blockedBy: this.#primary, message: `not reached: ${this.#primary} failed first` });
      } else {
        undecided({ status: 'BLOCKED', blockedBy: 'an unattributed assertion', message: `not reached: an assertion attributed to no rule failed: ${firstLine(error)}` });
      }
      return { kind: 'fail' };
    }
    const broken = this.#evidence().find((e) => (e.schemaIssues?.length ?? 0) > 0);
    if (broken?.shapeRule !== undefined) {
      const paths = broken.schemaIssues!.map((i) => i.path || '(root)').join(', ');
      undecided({
        status: 'BLOCKED',
        blockedBy: broken.shapeRule,
        message: `${broken.label} answered without what the scenario reads (${paths}): ${firstLine(error)}`,
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

  /** Every declared non-shape rule not yet FAIL or ERROR gets `verdict` (a passing rule too: its later checks never ran). */
  #settleUndecided(verdict: RecordedVerdict): void {
    for (const rule of this.#declared) {
      if (this.#shapeRules.has(rule) || this.#decided(rule)) continue;
      this.#verdicts.set(rule, verdict);
    }
  }

  /**
   * The verdict of every declared rule, and of every shape rule a 200 of the scenario exercised.
   * Call after the scenario ended (normally or through `stop`); `stopped` tells which.
   */
  results(stopped: boolean): Record<string, RecordedVerdict> {
    const out: Record<string, RecordedVerdict> = {};
    for (const rule of this.#declared) {
      if (this.#shapeRules.has(rule)) continue;
      const relied = this.#reliedOn.get(rule);
      out[rule] = { ...(this.#verdicts.get(rule) ?? { status: 'PASS' }), ...(relied ? { referenceOperations: [...relied].sort() } : {}) };
    }
    for (const [rule, verdict] of shapeVerdicts(this.#evidence())) out[rule] = verdict;
    for (const rule of this.#declared) {
      if (out[rule] !== undefined) continue;
      out[rule] = stopped
        ? { status: 'BLOCKED', blockedBy: this.#stoppedBy(out) ?? 'the scenario stopping', message: 'no 200 answer of its operation was reached' }
        : { status: 'BLOCKED', blockedBy: 'the scenario', message: 'the scenario declares this shape rule but no 200 answer of its operation was checked' };
    }
    return out;
  }

  #stoppedBy(results: Record<string, RecordedVerdict>): string | undefined {
    return Object.values(results).find((v) => v.blockedBy !== undefined)?.blockedBy;
  }
}

/** The required fields a 200 answer left out (its wire-schema issues where the body has no value), by path. */
function missingFields(exchange: Exchange): string[] {
  return (exchange.schemaIssues ?? []).filter((i) => i.path !== '' && (/received undefined$/.test(i.message) || valueAt(exchange.response?.body, i.path) === undefined)).map((i) => i.path);
}

/** The value at a dot path (`list[0].id` or `list.0.id`), undefined when any step is missing. */
function valueAt(body: unknown, path: string): unknown {
  let value = body;
  for (const step of path.split(/[.[\]]+/).filter((s) => s !== '')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

/** A value computed from a missing field: undefined itself, or NaN (arithmetic on it). */
function fromMissing(value: unknown): boolean {
  return value === undefined || Number.isNaN(value);
}

/**
 * Where `actual` differs from `expected`, whether one side is missing there (see fromMissing), one
 * entry per differing leaf. Either side: an answer that left a field out may be the one compared
 * against (`expect(read).toEqual(created)`).
 */
function differences(actual: unknown, expected: unknown): boolean[] {
  if (Object.is(actual, expected)) return [];
  if (fromMissing(actual) || fromMissing(expected)) return [true];
  const container = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';
  if (!container(actual) || !container(expected) || Array.isArray(actual) !== Array.isArray(expected)) return [false];
  const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
  return [...keys].flatMap((key) => differences(actual[key], expected[key]));
}

/** Paths of the values of a request body computed from a missing field (JSON drops undefined and sends NaN as null). */
function pathsFromMissing(value: unknown, path = ''): string[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const at = path === '' ? key : `${path}.${key}`;
    return fromMissing(inner) ? [at] : pathsFromMissing(inner, at);
  });
}

/** Shape rule → verdict of the wire-schema checks of every 200 in `evidence`: FAIL (first failing answer, its paths) or PASS. */
export function shapeVerdicts(evidence: readonly Exchange[]): Map<string, RecordedVerdict> {
  const out = new Map<string, RecordedVerdict>();
  for (const exchange of evidence) {
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
