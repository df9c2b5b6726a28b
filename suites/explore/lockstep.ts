/**
 * One program run in lockstep: every call goes to the target and to the reference model, the two
 * answers are compared (compare.ts), and the call is logged as it was sent to each side. What the
 * generators know of the program's world (features, plans, customers, entities, locks, future
 * instants) is learnt from the model's answers, which are the truth by definition.
 *
 * The first difference stops the program (a Divergence), unless its rule was already found by an
 * earlier program: then what follows is explained by it, and the program stops as blocked by that
 * finding (KnockOn). In parity mode every difference is kept and the program goes on.
 */
import type { ControlCallName } from '../../spec/control-plane.ts';
import { callMutates, type OperationDef } from '../../spec/operation.ts';
import { operations, type OperationName } from '../../spec/operations.ts';
import type { RuleId } from '../../spec/rules/catalogue.ts';
import { isRouteNotServed, TargetFault } from '../framework/checks.ts';
import type { Exchange } from '../framework/evidence.ts';
import { compareAnswers, compareEvents, type Answer, type CallQuestion, type Difference, type DifferenceKind } from './compare.ts';
import { IdMap } from './ids.ts';
import { leewayFor } from './leeway.ts';
import { isShould, type Writer } from './ownership.ts';
import type { WorldState } from './world.ts';
import { PUBLISHED_CLIENT_AGENT } from '../../spec/reference/differences.ts';
import { bearer, type Caller, type Headers, type Side, type SideAnswer } from './sides.ts';

/** One call of a program as it was made: what each side was sent and answered, and what differed. */
export interface Step {
  readonly index: number;
  /** The generator's command this call came from. */
  readonly command: string;
  /** An operation name, or `control:<call>`. */
  readonly operation: string;
  /** The body sent to the model; `targetRequest` when the target got another (its own IDs). */
  readonly request: unknown;
  readonly targetRequest?: unknown;
  /** Header overrides of an envelope variant (keys redacted). */
  readonly headers?: Readonly<Record<string, string | null>>;
  readonly variant?: string;
  /** What the call put to the test, so that a replay charges its differences as the run did. */
  readonly question?: { readonly intent?: string; readonly codeRule?: string; readonly tags?: readonly string[]; readonly customerId?: string; readonly eitherCode?: readonly string[] };
  readonly model: { readonly status: number; readonly body: unknown };
  readonly target: { readonly status: number; readonly body: unknown };
  readonly differences: readonly Difference[];
  /** The target's exchange, for the report (redacted). */
  readonly exchange?: Exchange;
  /** A call made only to find something on one side (a record's id), not compared. */
  readonly resolve?: true;
  /** A forced state: the record it forced, by what it holds (each side finds its own record's id again). */
  readonly select?: RecordSelector;
  /** The answers differed where the document leaves them open (leeway.ts): not compared. */
  readonly leeway?: string;
  /** Who sent it, where not the program's plain caller (sides.ts Caller). */
  readonly caller?: Caller;
  /** Sent pipelined on one connection with the step next to it (`first` then `second`). */
  readonly pipelined?: 'first' | 'second';
  /** A listing walked around a write: the index of the write's step, made between its first and second page calls, and the rows it removes. */
  readonly around?: { readonly write: number } & Removal;
}

/** Rows a write removes from a listing walked around it: those whose `field` holds one of `values`. */
export interface Removal {
  readonly field: string;
  readonly values: readonly string[];
}

/** A record named by what it holds: the n-th record of this plan held by this subject, oldest first. */
export interface RecordSelector {
  readonly customer_id: string;
  readonly plan_id: string;
  readonly entity_id: string | null;
  readonly nth: number;
}

/** A difference that stops the program: the property fails, fast-check shrinks the program. */
export class Divergence extends Error {
  override readonly name = 'Divergence';
  constructor(
    readonly step: Step,
    readonly differences: readonly Difference[],
  ) {
    super(`${step.operation} (step ${step.index + 1}): ${differences.map((d) => `${d.rule} at ${d.path || d.key}`).join('; ')}`);
  }
}

/** A difference explained by a rule an earlier program already found: the program stops, BLOCKED by that finding. */
export class KnockOn extends Error {
  override readonly name = 'KnockOn';
  constructor(readonly rules: readonly RuleId[]) {
    super(`explained by ${rules.join(', ')}, found earlier`);
  }
}

/**
 * A known difference of the reference ended the comparable part of the program: one its answers show
 * (spec/reference/differences.ts) or one where the document leaves the answer open (leeway.ts).
 */
export class KnownStop extends Error {
  override readonly name = 'KnownStop';
  constructor(readonly id: string) {
    super(id);
  }
}

/** The target answered a call as an unknown route (checks.ts `isRouteNotServed`): the run does not explore that operation. */
export class NotServed extends Error {
  override readonly name = 'NotServed';
  constructor(readonly operation: OperationName) {
    super(`the target does not serve ${operation}`);
  }
}

/**
 * Answers that say the target cannot answer now rather than how it answers this call: a rate limit
 * beyond the client's retries, or a gateway or overload status. Any other 5xx is an answer to the
 * call, compared like any other (a server error where the model accepts or refuses is a finding).
 */
const OUTAGE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

export interface LockstepOptions {
  readonly model: Side;
  readonly target: Side;
  /** The other tenant's key on each side (reads with it must find nothing of this tenant). */
  readonly otherKeys?: { readonly model: string; readonly target: string };
  readonly world: WorldState;
  readonly timeToleranceMs: number;
  /** Rules already found: a difference owned only by them stops the program as a knock-on. */
  readonly found: ReadonlySet<string>;
  /** Parity mode: keep every difference, never stop. */
  readonly collect?: boolean;
  /** How an envelope variant's header overrides are logged (keys redacted). */
  readonly redactHeaders?: (headers: Headers) => Record<string, string | null>;
  /** Restricts a target answer to what the program made (a shared tenant holds other data). */
  readonly ownedOnly?: (operation: OperationName, body: unknown) => unknown;
}

export interface CallSpec extends CallQuestion {
  /** The generator command it comes from. */
  readonly command: string;
  readonly operation: OperationName;
  readonly body: Record<string, unknown>;
  /** Header overrides of the envelope variant, per side (each side's own keys). */
  readonly headers?: { readonly model: Headers; readonly target: Headers };
  /** Tags for the writer refinement (`send-event`, `same-group`, …). */
  readonly tags?: readonly string[];
  /** More tags once the model has answered (a send_event the model denied). */
  readonly retag?: (model: Answer) => readonly string[];
  /** The customer whose state the call writes or reads, for the writer refinement. */
  readonly customerId?: string;
  /** Who sends it, where not the program's plain caller: the other environment's key, the published client's User-Agent. */
  readonly caller?: Caller;
}

/** How a call is logged beyond its request (a pipelined pair, a walk around a write). */
interface StepMarks {
  readonly pipelined?: Step['pipelined'];
  readonly around?: Step['around'];
}

/** The mark of a call's command that made it to observe what writes left (a write's read-back, the sweep): no writer itself. */
export const OBSERVED = ' (observed)';

const isSuccess = (status: number) => status >= 200 && status < 300;

export class Lockstep {
  readonly ids = new IdMap();
  readonly steps: Step[] = [];
  readonly world: WorldState;
  readonly #options: LockstepOptions;
  readonly #writers = new Map<string, Writer>();
  #clockWriter: { writer: Writer; at: number } | undefined;
  #lastStep = -1;

  constructor(options: LockstepOptions) {
    this.#options = options;
    this.world = options.world;
  }

  get otherKeys(): LockstepOptions['otherKeys'] {
    return this.#options.otherKeys;
  }

  /** Sends a call to both sides, compares the answers, logs the step; throws Divergence or KnockOn on a difference. */
  async call(request: CallSpec): Promise<{ model: Answer; target: Answer }> {
    const headers = this.#headersOf(request);
    const model = await this.#walk(this.#options.model, request, headers.model);
    const target = await this.#walk(this.#options.target, request, headers.target);
    return this.#settle(request, model, target);
  }

  /**
   * Two reads sent pipelined on one connection of the target (sides.ts `pair`) and one after the
   * other to the model; each compared and logged as a call of its own. Listings walked over pages
   * are no pair: only their first page would be pipelined.
   */
  async pair(first: CallSpec, second: CallSpec): Promise<void> {
    for (const spec of [first, second]) {
      if (PAGED.has(spec.operation) || callMutates(operations[spec.operation] as Pick<OperationDef, 'mutates'>, spec.body)) throw new Error(`${spec.operation} cannot be pipelined: only reads of one page are`);
    }
    const [a, b] = [this.#headersOf(first), this.#headersOf(second)];
    const model = [await this.#options.model.call(first.operation, first.body, a.model ? { headers: a.model } : {}), await this.#options.model.call(second.operation, second.body, b.model ? { headers: b.model } : {})] as const;
    const target = await this.#options.target.pair({ operation: first.operation, body: first.body, ...(a.target ? { headers: a.target } : {}) }, { operation: second.operation, body: second.body, ...(b.target ? { headers: b.target } : {}) });
    await this.#settle(first, model[0], target[0], { pipelined: 'first' });
    await this.#settle(second, model[1], target[1], { pipelined: 'second' });
  }

  /**
   * A paged listing walked on both sides with a write made between its first and second page calls
   * (compared like any call). The rows the write removes may show or not; every other row existed
   * throughout the walk and is compared: one missed or listed twice is LIST-WALK-CONCURRENT-INSERTS's
   * (SHOULD: the document tells clients to walk to the end, not what a concurrent write does to a walk).
   */
  async walkAround(listing: CallSpec, write: CallSpec, removal: Removal): Promise<void> {
    if (!PAGED.has(listing.operation)) throw new Error(`${listing.operation} is not a paged listing`);
    const headers = this.#headersOf(listing);
    const firstPages = [await this.#options.model.call(listing.operation, listing.body, headers.model ? { headers: headers.model } : {}), await this.#options.target.call(listing.operation, listing.body, headers.target ? { headers: headers.target } : {})] as const;
    const at = this.steps.length;
    await this.call(write);
    const kept = (answer: Walked): Walked => {
      if (answer.status !== 200) return answer;
      const envelope = answer.body as { list?: Record<string, unknown>[] };
      return { ...answer, body: { ...envelope, list: (envelope.list ?? []).filter((row) => !removal.values.includes(String(row[removal.field]))) } };
    };
    const model = kept(await this.#continue(this.#options.model, listing, headers.model, firstPages[0]));
    const target = kept(await this.#continue(this.#options.target, listing, headers.target, firstPages[1]));
    await this.#settle(listing, model, target, { around: { write: at, ...removal } });
  }

  /** The header overrides of a call on each side: its envelope variant's, or its caller's. */
  #headersOf(spec: CallSpec): { readonly model?: Headers; readonly target?: Headers } {
    if (spec.headers) return spec.headers;
    const caller = spec.caller;
    if (caller === undefined) return {};
    const keys = caller.environment === 'live' ? this.#options.otherKeys : undefined;
    if (caller.environment === 'live' && keys === undefined) throw new Error('the other environment has no key here');
    // The published client's User-Agent goes to the target only: the model answers as the document says, whoever asks.
    const agent: Headers = caller.agent === 'published-client' ? { 'user-agent': PUBLISHED_CLIENT_AGENT } : {};
    return { ...(keys ? { model: bearer(keys.model) } : {}), target: { ...(keys ? bearer(keys.target) : {}), ...agent } };
  }

  /** Compares the two answers of a call, logs it, learns from it; throws Divergence, KnockOn, KnownStop or NotServed. */
  async #settle(request: CallSpec, model: Walked, target: Walked, marks: StepMarks = {}): Promise<{ model: Answer; target: Answer }> {
    let spec = request;
    const { operation, body } = spec;
    if (spec.retag) spec = { ...spec, tags: [...spec.retag(model), ...(spec.tags ?? [])] };
    if (OUTAGE_STATUSES.has(target.status)) throw new TargetFault(`${operation}: the target answered ${target.status}`, target.exchange);
    // Not served: answered as an unknown route where the model answered (a refusal of the key aside: a variant may send none).
    if (model.status !== 401 && !isRouteNotServed(model.status, model.body) && isRouteNotServed(target.status, target.body)) {
      this.#log(spec, model, target, [], undefined, marks);
      throw new NotServed(operation);
    }
    const owned = this.#options.ownedOnly && target.status === 200 ? { ...target, body: this.#options.ownedOnly(operation, target.body) } : target;
    // A call that changes state answers with that state: its own statement owns what it shows.
    const writes = WRITING.has(operation);
    // (A customers.get_or_create of a customer the model holds changes nothing: what it shows is the writes' before it.)
    const writer = writes && callMutates(operations[operation] as Pick<OperationDef, 'mutates'>, body) && !this.#returnsExisting(spec) ? { operation, tags: spec.tags ?? [] } : this.#writerFor(subjectOf(spec));
    const context = { operation, request: body, ids: this.ids, timeToleranceMs: this.#options.timeToleranceMs, ...(writer ? { writer } : {}), ...pickQuestion(spec) };
    const compared = compareAnswers(context, model, owned);
    // Around a concurrent write, a row missed or listed twice is the walk's, not the listing's filters'.
    const around = marks.around === undefined ? compared : { ...compared, differences: compared.differences.map((d) => (d.kind === 'membership' && d.path === 'list' ? { ...d, rule: 'LIST-WALK-CONCURRENT-INSERTS' as const, documented: false } : d)) };
    // A walk cut at MAX_PAGES saw part of the rows (a shared tenant holds other programs' too, the model this program's only): which rows it lists says nothing.
    const comparison = model.cut || target.cut ? { ...around, differences: around.differences.filter((d) => !(d.kind === 'membership' && d.path === 'list')) } : around;
    const leeway = comparison.known === undefined && comparison.differences.length > 0 ? leewayFor({ operation, request: body, model, target: owned, world: this.world, ...(spec.variant ? { variant: spec.variant.name } : {}) }) : undefined;
    const differences = comparison.known || leeway ? [] : await this.#charged(spec, comparison.differences);
    const step = this.#log(spec, model, target, differences, leeway?.id, marks);
    if (comparison.known) throw new KnownStop(`${operation}: ${comparison.known.id}`);
    // Where the document leaves the answer open, a call that changed state leaves the two sides apart: nothing after it compares.
    if (leeway && callMutates(operations[operation] as Pick<OperationDef, 'mutates'>, body)) throw new KnownStop(`${operation}: ${leeway.id}`);
    this.#judge(step);
    // Any call of an operation that can write is a writer of what later reads show, a refused one too
    // (what a refusal leaves behind), and a check without send_event or a preview (which must change nothing).
    // A read made to observe a write (command `… (observed)`) is not a writer: what it shows is that write's.
    // Nor is a customers.get_or_create of a customer the model holds: it would hide the write before it (a clock move that
    // reset the customer's balances) from the reads after it.
    if (writes && !spec.command.endsWith(OBSERVED) && !this.#returnsExisting(spec)) this.#wrote(spec, isSuccess(model.status));
    if (operation === 'billing.attach' && isSuccess(model.status)) this.#held(body);
    this.#learn(model.body);
    return { model, target };
  }

  /**
   * The answer of a call; for a paged listing, every page walked from the first (each side follows
   * its own cursors) and the rows put together, so that rows are compared, not page boundaries.
   */
  async #walk(side: Side, spec: CallSpec, headers: Headers | undefined): Promise<Walked> {
    const first = await side.call(spec.operation, spec.body, headers ? { headers } : {});
    return this.#continue(side, spec, headers, first);
  }

  /** The rest of a walk after its first page (nothing more for a call that is not a paged listing). */
  async #continue(side: Side, spec: CallSpec, headers: Headers | undefined, first: SideAnswer): Promise<Walked> {
    const options = headers ? { headers } : {};
    if (!PAGED.has(spec.operation) || first.status !== 200) return first;
    const rows = [...((first.body as { list?: unknown[] }).list ?? [])];
    let page = first;
    let pages = 1;
    const goesOn = () => {
      const { has_more: more, next_cursor: cursor } = page.body as { has_more?: boolean; next_cursor?: string | null };
      return typeof cursor === 'string' && (more !== false || spec.operation === 'entities.list') ? cursor : undefined;
    };
    for (let cursor = goesOn(); cursor !== undefined && pages < MAX_PAGES; cursor = goesOn()) {
      page = await side.call(spec.operation, { ...spec.body, start_cursor: cursor }, options);
      pages++;
      if (page.status !== 200) return { ...page, pages };
      rows.push(...((page.body as { list?: unknown[] }).list ?? []));
    }
    // One page is compared as answered (its has_more and next_cursor included); a walk as the rows of all
    // its pages, ending as a last page does (a field the first page left out stays out).
    if (pages === 1) return { ...first, pages };
    const envelope = first.body as Record<string, unknown>;
    const cut = goesOn() !== undefined;
    return { ...first, body: { ...envelope, list: rows, ...('has_more' in envelope ? { has_more: false } : {}), ...('next_cursor' in envelope ? { next_cursor: null } : {}) }, pages, ...(cut ? { cut } : {}) };
  }

  /**
   * A read sent in an envelope variant answered otherwise than the model: the same read is sent
   * plain. When both sides agree on it, the variant is what the target mishandles, and its rule owns
   * the difference (its status rule a status or code one, as compared). When they differ plain too,
   * the variant has nothing to do with it: the plain read's differences are charged, to their own
   * rules. A refused variant of a read that differs only in content (the target answered it) is the
   * variant's already. A write is not sent twice: its differences stay as compared.
   */
  async #charged(spec: CallSpec, differences: readonly Difference[]): Promise<readonly Difference[]> {
    const variant = spec.variant;
    if (variant === undefined || differences.length === 0) return differences;
    if (callMutates(operations[spec.operation] as Pick<OperationDef, 'mutates'>, spec.body)) return differences;
    const plain = { ...spec, headers: undefined, variant: undefined };
    const [model, target] = [await this.#walk(this.#options.model, plain, undefined), await this.#walk(this.#options.target, plain, undefined)];
    const owned = this.#options.ownedOnly && target.status === 200 ? { ...target, body: this.#options.ownedOnly(spec.operation, target.body) } : target;
    const again = compareAnswers({ operation: spec.operation, request: spec.body, ids: this.ids, timeToleranceMs: this.#options.timeToleranceMs, ...pickQuestion(plain) }, model, owned);
    if (again.differences.length > 0) return again.differences;
    if (differences.some((d) => d.kind === 'status' || d.kind === 'code')) return differences;
    return differences.map((d) => ({ ...d, rule: variant.rule, documented: d.documented && !isShould(variant.rule) }));
  }

  /** The same control-plane call on both sides (clock moves, forced states); both must accept it, or the program cannot go on. */
  async control(command: string, name: ControlCallName, body: { model: unknown; target: unknown }, tags: readonly string[] = [], select?: RecordSelector, caller?: Caller): Promise<{ model: unknown; target: unknown }> {
    const keys = caller?.environment === 'live' ? this.#options.otherKeys : undefined;
    if (caller?.environment === 'live' && keys === undefined) throw new ControlRefused(`${name}: the other environment has no key here`);
    const model = await this.#options.model.control(name, body.model, keys ? { headers: bearer(keys.model) } : {});
    const target = await this.#options.target.control(name, body.target, keys ? { headers: bearer(keys.target) } : {});
    const step: Step = {
      index: this.steps.length,
      command,
      operation: `control:${name}`,
      request: body.model,
      ...(JSON.stringify(body.target) === JSON.stringify(body.model) ? {} : { targetRequest: body.target }),
      model,
      target,
      differences: [],
      ...(select ? { select } : {}),
      ...(caller ? { caller } : {}),
    };
    this.steps.push(step);
    if (model.status !== 200 || target.status !== 200) throw new ControlRefused(`${name}: model ${model.status}, target ${target.status}`);
    // The program's clock is its own environment's; the other environment's moves with it (parts/control.ts).
    if ((name === 'clock.advance' || name === 'clock.set') && caller === undefined) this.world.now = (model.body as { now: number }).now;
    // A clock move or a forced state changes every customer's state: it is the last write until the next call writes.
    this.#clockWriter = { writer: { operation: name, tags }, at: this.steps.length };
    return { model: model.body, target: target.body };
  }

  /** The usage events each side's control plane recorded for a customer, compared (compare.ts `compareEvents`). */
  async events(command: string, customerId: string): Promise<void> {
    const body = { customer_id: customerId, limit: 1000 };
    const model = await this.#options.model.control('events.list', body);
    const target = await this.#options.target.control('events.list', body);
    if (model.status !== 200 || target.status !== 200) throw new ControlRefused(`events.list: model ${model.status}, target ${target.status}`);
    const writer = this.#writerFor(customerId);
    const differences = compareEvents({ request: body, ids: this.ids, timeToleranceMs: this.#options.timeToleranceMs, ...(writer ? { writer } : {}) }, model.body, target.body);
    const step: Step = { index: this.steps.length, command, operation: 'control:events.list', request: body, model, target, differences, question: { customerId } };
    this.steps.push(step);
    this.#judge(step);
  }

  /** A read on one side only, to find something there (a record's id); logged, never compared. */
  async resolve(command: string, side: 'model' | 'target', operation: OperationName, body: Record<string, unknown>): Promise<Answer> {
    const answer = await this.#options[side].call(operation, body);
    this.steps.push({ index: this.steps.length, command, operation, request: body, model: side === 'model' ? answer : { status: 0, body: null }, target: side === 'target' ? answer : { status: 0, body: null }, differences: [], resolve: true });
    return answer;
  }

  #log(spec: CallSpec, model: Answer, target: Answer & { exchange?: Exchange }, differences: readonly Difference[], leeway?: string, marks: StepMarks = {}): Step {
    const redact = this.#options.redactHeaders ?? ((headers: Headers) => headers);
    const step: Step = {
      index: this.steps.length,
      command: spec.command,
      operation: spec.operation,
      request: spec.body,
      ...(spec.headers ? { headers: redact(spec.headers.target) } : {}),
      ...(spec.variant ? { variant: spec.variant.name } : {}),
      question: { ...(spec.intent ? { intent: spec.intent } : {}), ...(spec.codeRule ? { codeRule: spec.codeRule } : {}), ...(spec.tags?.length ? { tags: spec.tags } : {}), ...(spec.customerId ? { customerId: spec.customerId } : {}), ...(spec.eitherCode ? { eitherCode: spec.eitherCode } : {}) },
      model: { status: model.status, body: model.body },
      target: { status: target.status, body: target.body },
      differences,
      ...(target.exchange ? { exchange: target.exchange } : {}),
      ...(leeway ? { leeway } : {}),
      ...(spec.caller ? { caller: spec.caller } : {}),
      ...marks,
    };
    this.steps.push(step);
    this.#lastStep = step.index;
    return step;
  }

  #judge(step: Step): void {
    if (step.differences.length === 0 || this.#options.collect) return;
    // Explained by a finding: its rule, or the same node differing the same way (one cause, seen through another answer).
    const fresh = step.differences.filter((d) => !this.#options.found.has(d.rule) && !this.#options.found.has(signature(d)));
    if (fresh.length > 0) throw new Divergence(step, step.differences);
    // A finding's own difference again, in how an answer is written (a field left out, one more, a spelling, a refusal's code):
    // the two sides' state is not apart, so the program goes on (a target that always leaves a field out is still explored).
    if (step.differences.every((d) => WRITTEN_ONLY.has(d.kind) && this.#options.found.has(signature(d)))) return;
    throw new KnockOn([...new Set(step.differences.map((d) => d.rule))]);
  }

  /** The last write to the customer's state (or a clock move or forced state after it). */
  #writerFor(customerId: string | undefined): Writer | undefined {
    const own = customerId === undefined ? undefined : this.#writers.get(customerId);
    const clock = this.#clockWriter;
    if (own === undefined) return clock?.writer ?? this.#writers.get('*');
    return clock !== undefined && clock.at > (own as Writer & { at: number }).at ? clock.writer : own;
  }

  /** A customers.get_or_create of a customer the program had made before this call (in its own environment). */
  #returnsExisting(spec: CallSpec): boolean {
    if (spec.operation !== 'customers.get_or_create') return false;
    return (spec.tags ?? []).includes('existing') || (spec.caller?.environment === undefined && this.world.customers.includes(String(spec.body['customer_id'])));
  }

  #wrote(spec: CallSpec, accepted: boolean): void {
    // A refused call is judged by the statement it put to the test (its intent), when it has one.
    const refused = accepted ? [] : ['refused', ...(spec.intent ? [`rule:${spec.intent}`] : [])];
    const writer = { operation: spec.operation, tags: [...refused, ...(spec.tags ?? [])], at: this.steps.length } as Writer & { at: number };
    const subject = subjectOf(spec);
    if (subject !== undefined) this.#writers.set(subject, writer);
    this.#writers.set('*', writer);
  }

  #held(body: Readonly<Record<string, unknown>>): void {
    const planId = body['plan_id'] as string;
    const featureIds = this.world.plans.find((p) => p.id === planId)?.items.map((i) => i.featureId) ?? [];
    const entityId = body['entity_id'] as string | undefined;
    this.world.holdings.push({ customerId: body['customer_id'] as string, ...(entityId ? { entityId } : {}), planId, featureIds });
  }

  /** Future instants in the model's answer, for the clock moves. */
  #learn(body: unknown): void {
    const visit = (value: unknown, key: string) => {
      if (Array.isArray(value)) return value.forEach((item) => visit(item, key));
      if (value !== null && typeof value === 'object') return Object.entries(value).forEach(([k, v]) => visit(v, k));
      if (typeof value === 'number' && INSTANT_FIELDS.has(key) && value > this.world.now) this.world.instants.add(value);
    };
    visit(body, '');
  }

  get lastStep(): number {
    return this.#lastStep;
  }
}

/** Kinds of difference in how an answer is written, not in the state it shows. */
const WRITTEN_ONLY: ReadonlySet<DifferenceKind> = new Set(['missing', 'extra', 'spelling', 'error-body', 'code']);

/** Operations that can change state: every operation not marked as a pure read, and the preview, whose statement is that it changes nothing. */
const WRITING: ReadonlySet<string> = new Set([...Object.values(operations).filter((op) => op.mutates !== false).map((op) => op.name), 'billing.preview_multi_update']);

/** A side's answer to a call, a paged listing's walked: how many pages, and whether the walk was cut at MAX_PAGES with more to come. */
type Walked = SideAnswer & { pages?: number; cut?: boolean };

/** The listings paged by cursor, walked to their end (at most MAX_PAGES pages). */
const PAGED: ReadonlySet<string> = new Set(['subscriptions.list', 'purchases.list', 'entities.list']);
const MAX_PAGES = 100;

const INSTANT_FIELDS = new Set(['next_reset_at', 'resets_at', 'current_period_end', 'trial_ends_at', 'expires_at']);

/** The customer a call writes or reads, for the writer refinement: one ID names two customers in the two environments. */
function subjectOf(spec: CallSpec): string | undefined {
  return spec.customerId === undefined || spec.caller?.environment === undefined ? spec.customerId : `${spec.caller.environment}:${spec.customerId}`;
}

/** What a difference looks like whatever answer shows it: the node and how it differs. */
export function signature(difference: Difference): string {
  // Seen in a reference-only answer, a cause does not hide the same difference in a documented answer.
  return `${difference.key}|${difference.kind}|${difference.documented ? 'documented' : 'reference'}`;
}

/** A control call a side refused: the program cannot build the state it wanted (setup, never a finding). */
export class ControlRefused extends Error {
  override readonly name = 'ControlRefused';
}

function pickQuestion(spec: CallSpec): CallQuestion {
  return { ...(spec.intent ? { intent: spec.intent } : {}), ...(spec.codeRule ? { codeRule: spec.codeRule } : {}), ...(spec.variant ? { variant: spec.variant } : {}), ...(spec.eitherCode ? { eitherCode: spec.eitherCode } : {}) };
}
