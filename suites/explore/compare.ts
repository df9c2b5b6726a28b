/**
 * The normative projection: two answers to the same call, the target's and the reference model's,
 * compared only where the document decides, each difference charged to the rule that owns it
 * (ownership.ts), at that rule's level.
 *
 * - Status class first: 200 against a refusal is the call's question (its intent, a bound or
 *   enumeration of the request, the refusal's code); another 2xx for 200 is ERR-SUCCESS-200's. Two
 *   refusals with different codes differ only for the SHOULD rule of the code.
 * - Then every node of the answer (fields.ts): exact for counts, amounts, booleans and strings;
 *   timestamps exact under a shared frozen clock, else within a tolerance; IDs the target chooses
 *   through the program's ID map; arrays as sets (the document shows no order), matched by their
 *   identity fields; maps by key. Nodes the document leaves open are not compared.
 * - Known differences of the 2.3.0 reference (spec/reference/differences.ts) never count: a missing
 *   field they list is passed over, and a refusal they explain stops the program without a finding.
 */
import { isDeepStrictEqual } from 'node:util';
import { boundIsStated, ownBoundRule } from '../../spec/constraint-provenance.ts';
import { operations, type OperationName } from '../../spec/operations.ts';
import { KNOWN_CLIENT_DIFFERENCES, KNOWN_DIFFERENCES, type KnownDifference } from '../../spec/reference/differences.ts';
import { ruleById, type RuleId } from '../../spec/rules/catalogue.ts';
import { answerShape, controlAnswerShape, type FieldNode } from './fields.ts';
import { filterRule } from './filters.ts';
import type { IdMap } from './ids.ts';
import { balanceWriter, isShould, OPERATION_RULES, ownershipOf, writerRule, type FieldOwner, type OwnerContext, type Writer } from './ownership.ts';

/** One side's answer to a call. */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
  /** Target only: where its 200 body does not match the response schema (the client's wire-schema check). */
  readonly schemaIssues?: readonly { readonly path: string; readonly message: string }[];
  /** Target only: where its error body is not `{message, code, env}`. */
  readonly errorBodyIssues?: readonly { readonly path: string; readonly message: string }[];
  /** Target only: where its answer mixed the document's camelCase with the wire's snake_case. */
  readonly mixedSpellings?: readonly string[];
}

/** What a call asks beyond its body: the rules its envelope variant or its purpose put to the test. */
export interface CallQuestion {
  /** A deliberate refusal, or a call whose acceptance is one statement's (LIC-ATTACH-ALL-ASSIGNED-OK). */
  readonly intent?: RuleId;
  /** The SHOULD rule of the refusal's code, when the intent has one. */
  readonly codeRule?: RuleId;
  /**
   * An envelope variant: its status rule (else its rule) owns a refusal or acceptance that differs,
   * its code rule a refusal's code. A difference in the content of a read is the variant's only when
   * the same read sent plain shows none (Lockstep decides; compare charges the field's owner).
   */
  readonly variant?: {
    readonly name: string;
    readonly rule: RuleId;
    readonly statusRule?: RuleId;
    readonly codeRule?: RuleId;
    /**
     * One the conventions allow, answered as the same request sent plain: it may be refused where it
     * must not be, but a request the model refuses and the target takes is the operation's, not the
     * envelope's (a write cannot be sent again plain to tell, as a read is).
     */
    readonly answeredAsPlain?: true;
  };
  /**
   * A request wrong in two ways whose order of checks the reference has not recorded: either
   * refusal answers it, so a target refusing it with one of these codes differs from the model in
   * nothing (a refusal against an acceptance still differs).
   */
  readonly eitherCode?: readonly string[];
}

export interface CompareContext extends CallQuestion {
  readonly operation: OperationName;
  /** The request as sent to the model. */
  readonly request: Readonly<Record<string, unknown>>;
  /** The last write to the state this call reads (for the owners of state-bearing fields). */
  readonly writer?: Writer;
  readonly ids: IdMap;
  /** 0 when both clocks are frozen at the same instant; else how far apart timestamps may be. */
  readonly timeToleranceMs: number;
}

export type DifferenceKind = 'status' | 'code' | 'error-body' | 'spelling' | 'value' | 'missing' | 'extra' | 'membership' | 'order' | 'null' | 'id' | 'shape';

export interface Difference {
  readonly rule: RuleId;
  readonly kind: DifferenceKind;
  /** The node of the projection (`Balance.usage`), `status` or `code`. */
  readonly key: string;
  /** Where in the answer (`balances.msgs.breakdown[0].usage`); '' for the whole answer. */
  readonly path: string;
  readonly model: unknown;
  readonly target: unknown;
  /** Whether the compared value is one the document shows (else only the reference does). */
  readonly documented: boolean;
}

export interface Comparison {
  readonly differences: readonly Difference[];
  /** A known difference of the reference explains the answers; nothing more of the program can be compared. */
  readonly known?: KnownDifference;
}

const CODE_RULES: Readonly<Record<string, RuleId>> = {
  customer_not_found: 'ERR-CUSTOMER-NOT-FOUND',
  entity_not_found: 'ERR-ENTITY-NOT-FOUND',
  product_not_found: 'ERR-PLAN-NOT-FOUND',
  feature_not_found: 'ERR-FEATURE-NOT-FOUND',
  invalid_cursor: 'ERR-INVALID-CURSOR',
  invalid_inputs: 'ERR-VALIDATION-CODE',
  reward_program_not_found: 'REF-UNKNOWN-PROGRAM',
  reward_not_found: 'REF-REWARD-CREATE',
  duplicate_feature_id: 'FEAT-DUPLICATE-ID',
  product_already_exists: 'PLAN-DUPLICATE-ID',
  entity_already_exists: 'ENT-CREATE-DUPLICATE',
  cus_product_not_found: 'PREV-TARGET-HELD',
  invalid_api_version: 'VER-INVALID-VERSION',
  no_secret_key: 'AUTH-NO-KEY-CODE',
  invalid_secret_key: 'AUTH-UNKNOWN-KEY-CODE',
  invalid_feature: 'FEAT-CREDIT-SCHEMA-VALID',
  lock_not_found: 'BAL-FINALIZE-WIRE',
};

const codeOf = (body: unknown): string | undefined => {
  const code = (body as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

const isSuccess = (status: number) => status >= 200 && status < 300;

/** A MUST rule may judge an answer of a reference-only operation only when the catalogue says it constrains that operation. */
function fitsOperation(rule: RuleId, operation: OperationName): boolean {
  if (operations[operation].provenance === 'documented' || isShould(rule)) return true;
  return (ruleById.get(rule)?.operations as readonly string[] | undefined)?.includes(operation) ?? false;
}

/**
 * The rule of the bound or enumeration the model's validation refused, if the request breaks one:
 * its own rule, ERR-OUT-OF-BOUNDS-OR-ENUM where interface.md states it outright on a documented
 * operation, else ERR-OUT-OF-BOUNDS-REFERENCE (as the generated-bounds scenarios decide).
 */
export function validationRule(operation: OperationName, request: unknown): RuleId | undefined {
  const parsed = operations[operation].request.safeParse(request);
  if (parsed.success) return undefined;
  const path = (parsed.error.issues[0]?.path ?? []) as (string | number)[];
  return ownBoundRule(operation, path) ?? (boundIsStated(operation, path) ? 'ERR-OUT-OF-BOUNDS-OR-ENUM' : 'ERR-OUT-OF-BOUNDS-REFERENCE');
}

function statusRule(context: CompareContext, model: Answer, target: Answer): RuleId {
  const envelope = context.variant?.answeredAsPlain && !isSuccess(model.status) ? undefined : context.variant;
  // Found where the model finds nothing after a delete (what the delete left behind), or not found where the model still
  // holds it (what the delete took too: every version of a plan, another customer's entity): the delete's, not the read's.
  const notFound = (answer: Answer) => answer.status === 404;
  const afterDelete = context.writer?.operation.endsWith('.delete') && ((notFound(model) && isSuccess(target.status)) || (isSuccess(model.status) && notFound(target)));
  const byDelete = afterDelete ? writerRule(context.writer!, 'record') : undefined;
  const candidates = [
    envelope?.statusRule ?? envelope?.rule,
    // Before the read's intent: a get of a deleted customer puts CUS-GET-UNKNOWN to the test, but found there, the delete kept it.
    byDelete,
    context.intent,
    isSuccess(model.status) ? undefined : validationRule(context.operation, context.request),
    isSuccess(model.status) ? undefined : CODE_RULES[codeOf(model.body) ?? ''],
  ];
  return candidates.find((rule): rule is RuleId => rule !== undefined && fitsOperation(rule, context.operation)) ?? OPERATION_RULES[context.operation];
}

function knownRefusal(context: CompareContext, model: Answer, target: Answer): KnownDifference | undefined {
  return KNOWN_DIFFERENCES.find((known) => {
    if (known.direction !== 'request') return false;
    const rule = ruleById.get(known.rule);
    if (!(rule?.operations as readonly string[] | undefined)?.includes(context.operation)) return false;
    // Path '' names the whole body: a request holding a null anywhere; otherwise a request without a value there (`*`: in some item).
    const lacks = known.path === '' ? holdsNull(context.request) : lacksValueAt(context.request, known.path.split('.'));
    const applies = lacks && Object.entries(known.requestHolds ?? {}).every(([field, value]) => context.request[field] === value);
    // The reference refuses (or takes) what the model does not, or refuses it for its own reason before the model's.
    return applies && (isSuccess(model.status) !== isSuccess(target.status) || (!isSuccess(model.status) && (model.status !== target.status || codeOf(model.body) !== codeOf(target.body))));
  });
}

function holdsNull(value: unknown): boolean {
  if (value === null) return true;
  return typeof value === 'object' && Object.values(value as object).some(holdsNull);
}

/** Whether the body has no value (or null) at the path; `*` stands for the items of an array, any one of which may lack it. */
function lacksValueAt(value: unknown, path: readonly string[]): boolean {
  if (path.length === 0) return value == null;
  if (value === null || typeof value !== 'object') return false;
  const [step, ...rest] = path;
  if (step === '*') return Array.isArray(value) && value.some((item) => lacksValueAt(item, rest));
  return lacksValueAt((value as Record<string, unknown>)[step!], rest);
}

/** Compares the target's answer with the model's. */
export function compareAnswers(context: CompareContext, model: Answer, target: Answer): Comparison {
  const documented = operations[context.operation].provenance === 'documented';
  const difference = (rule: RuleId, kind: DifferenceKind, key: string, m: unknown, t: unknown): Difference => ({ rule, kind, key, path: '', model: m, target: t, documented: documented && !isShould(rule) });
  // A server fault is the success rule's, as the scenarios charge it (checks.ts "Server faults"), whatever the call asked.
  if (isServerFault(target)) return { differences: [difference(successRule(context.operation), 'status', 'status', summary(model), summary(target))] };

  if (isSuccess(model.status) !== isSuccess(target.status)) {
    const known = knownRefusal(context, model, target);
    if (known) return { differences: [], known };
    return { differences: [difference(statusRule(context, model, target), 'status', 'status', summary(model), summary(target))] };
  }
  if (!isSuccess(model.status)) {
    const known = knownRefusal(context, model, target);
    if (known) return { differences: [], known };
    const differences: Difference[] = [];
    if ((target.errorBodyIssues?.length ?? 0) > 0) differences.push(difference('ERR-BODY-SHAPE', 'error-body', 'error', model.body, target.body));
    const [m, t] = [codeOf(model.body), codeOf(target.body)];
    if (differences.length === 0 && t !== undefined && context.eitherCode?.includes(t)) return { differences };
    if (differences.length === 0 && model.status !== target.status && context.variant !== undefined && !context.variant.answeredAsPlain) {
      // A variant refused with another status (401 against a 404): how the envelope is refused is the variant's question.
      // Not one the conventions allow: that refusal is the plain call's (the body's), compared as below.
      differences.push(difference(context.variant.statusRule ?? context.variant.rule, 'status', 'status', summary(model), summary(target)));
    } else if (differences.length === 0 && (m !== t || model.status !== target.status)) {
      const rule = [context.variant?.codeRule, context.codeRule, CODE_RULES[m ?? '']].find((r): r is RuleId => r !== undefined && isShould(r)) ?? 'ERR-VALIDATION-CODE';
      differences.push(difference(rule, 'code', 'code', `${model.status} ${m ?? ''}`.trim(), `${target.status} ${t ?? ''}`.trim()));
    }
    return { differences };
  }
  if (model.status !== target.status) {
    return { differences: [difference(successRule(context.operation), 'status', 'status', model.status, target.status)] };
  }
  const out: Difference[] = [];
  if ((target.mixedSpellings?.length ?? 0) > 0) out.push(difference('CONV-CONSISTENT-SPELLING', 'spelling', 'spelling', [], target.mixedSpellings));
  new Walk(context, target).node(answerShape(context.operation), model.body, target.body, '', undefined, undefined, out);
  return { differences: out };
}

/**
 * Compares the usage events each side's control plane lists: what balances.check with send_event
 * (and the setup calls that record usage) recorded, as the Events part of the document says.
 */
export function compareEvents(context: Omit<CompareContext, 'operation'>, model: unknown, target: unknown): Difference[] {
  const out: Difference[] = [];
  new Walk({ ...context, operation: 'balances.check' }, { status: 200, body: target }).node(controlAnswerShape('events.list'), model, target, '', undefined, undefined, out);
  return out;
}

/** The rule of "success is 200" for an operation: the document's for a documented one, the reference's for a setup one. */
function successRule(operation: OperationName): RuleId {
  return operations[operation].provenance === 'documented' ? 'ERR-SUCCESS-200' : 'ERR-SUCCESS-200-SETUP';
}

/** A 5xx answer (the outages, 502 to 504, never reach the comparison: lockstep.ts). */
export function isServerFault(answer: Pick<Answer, 'status'>): boolean {
  return answer.status >= 500;
}

function summary(answer: Answer): string {
  const code = codeOf(answer.body);
  return code === undefined ? String(answer.status) : `${answer.status} ${code}`;
}

type Obj = Readonly<Record<string, unknown>>;
const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The nodes (fields.ts keys) the known differences of the reference leave out of its answers: the
 * path of each, in every answer of its shape rule, named by its node, so the same field is passed over
 * wherever the resource shows (a plan's `version_slug` in plans.get and in plans.list alike).
 */
const KNOWN_MISSING: ReadonlySet<string> = new Set(
  KNOWN_DIFFERENCES.filter((known) => known.direction === 'response').flatMap((known) =>
    Object.values(operations)
      .filter((op) => op.shapeRule === known.rule)
      .flatMap((op) => {
        let node: FieldNode | undefined = answerShape(op.name as OperationName);
        for (const step of known.path.split('.')) node = step === '*' ? node?.element : node?.fields?.[step];
        return node === undefined ? [] : [node.key];
      }),
  ),
);

/**
 * Keys beyond a closed object's fields that the reference and the published client's mode of the
 * fake add (KNOWN_CLIENT_DIFFERENCES, kind `response`), by operation, as starred paths: passed over,
 * the scenarios decide their rules.
 */
const KNOWN_EXTRA: ReadonlyMap<OperationName, ReadonlySet<string>> = new Map(
  KNOWN_CLIENT_DIFFERENCES.filter((known) => known.kind === 'response').map((known) => [known.operation, new Set(known.paths ?? [])]),
);

function starred(path: string): string {
  return path.replaceAll(/\[\d+\]/g, '.*');
}

function camelCase(key: string): string {
  return key.replaceAll(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** The dotted form of the client's issue paths (`list[0].id`, `list.0.id`) and of ours, to match them. */
function dotted(path: string): string {
  return path.replaceAll(/\[(\d+)\]/g, '.$1');
}

class Walk {
  readonly #context: CompareContext;
  /** Inside a row paired with one of several alike (matchElements): the IDs learnt there are a guess. */
  #guessing = false;
  readonly #documentedOp: boolean;
  readonly #issues: readonly string[];

  constructor(context: CompareContext, target: Answer) {
    this.#context = context;
    this.#documentedOp = operations[context.operation].provenance === 'documented';
    this.#issues = (target.schemaIssues ?? []).map((issue) => dotted(issue.path));
  }

  node(node: FieldNode, m: unknown, t: unknown, path: string, mParent: Obj | undefined, tParent: Obj | undefined, out: Difference[]): void {
    const ownership = ownershipOf(node.key);
    if (ownership !== undefined && 'notCompared' in ownership) return;
    const owner = ownership as FieldOwner | undefined;
    if (m === undefined && t === undefined) return;
    if (t === undefined) {
      if (KNOWN_MISSING.has(node.key)) return;
      const name = path.split('.').at(-1)?.replace(/\[\d+\]$/, '') ?? '';
      if (tParent !== undefined && name !== '' && tParent[camelCase(name)] !== undefined) return void out.push(this.#difference('CONV-RESPONSE-SNAKE-CASE', 'missing', node, path, m, t));
      if (!node.optional) return void out.push(this.#difference(operations[this.#context.operation].shapeRule as RuleId, 'missing', node, path, m, t));
    }
    if (m === undefined || t === undefined || m === null || t === null) {
      if (m === t || owner === undefined) return;
      const kind = m === undefined ? 'extra' : t === undefined ? 'missing' : 'null';
      return void out.push(this.#difference(this.#rule(node, owner, m, t, mParent, tParent, true), kind, node, path, m, t, owner.documentedValue === true && m !== null && m !== undefined));
    }
    if (node.kind === 'object') {
      if (!isObj(m) || !isObj(t)) return void out.push(this.#difference(this.#shapeOr(owner, path), 'shape', node, path, m, t));
      for (const [name, child] of Object.entries(node.fields ?? {})) this.node(child, m[name], t[name], join(path, name), m, t, out);
      const knownExtra = KNOWN_EXTRA.get(this.#context.operation);
      const beyond = owner?.closed ? Object.keys(t).filter((key) => !(key in (node.fields ?? {})) && !knownExtra?.has(starred(join(path, key)))) : [];
      if (beyond.length > 0) out.push(this.#difference(owner!.rule, 'extra', node, path, Object.keys(m).sort(), beyond.sort()));
      return;
    }
    if (node.kind === 'map') {
      if (!isObj(m) || !isObj(t)) return void out.push(this.#difference(this.#shapeOr(owner, path), 'shape', node, path, m, t));
      const keys = new Set([...Object.keys(m), ...Object.keys(t)]);
      const missing = [...keys].filter((key) => !(key in t)).sort();
      const extra = [...keys].filter((key) => !(key in m)).sort();
      if ((missing.length > 0 || extra.length > 0) && owner !== undefined) {
        out.push(this.#difference(this.#rule(node, owner, m, t, mParent, tParent, false), 'membership', node, path, { keys: Object.keys(m).sort(), missingInTarget: missing }, { keys: Object.keys(t).sort(), extraInTarget: extra }));
      }
      for (const key of keys) if (key in m && key in t) this.node(node.element!, m[key], t[key], join(path, key), m, t, out);
      return;
    }
    if (node.kind === 'array') {
      if (!Array.isArray(m) || !Array.isArray(t)) return void out.push(this.#difference(this.#shapeOr(owner, path), 'shape', node, path, m, t));
      this.#array(node, owner, m, t, path, mParent, tParent, out);
      return;
    }
    if (owner === undefined) return;
    this.#leaf(node, owner, m, t, path, mParent, tParent, out);
  }

  #schemaIssueAt(path: string): boolean {
    const at = dotted(path);
    return this.#issues.some((issue) => issue === at || at.startsWith(`${issue}.`));
  }

  /** A value of the wrong type: the shape rule's when the client's schema check found it, else the owner's. */
  #shapeOr(owner: FieldOwner | undefined, path: string): RuleId {
    if (this.#schemaIssueAt(path) || owner === undefined) return operations[this.#context.operation].shapeRule as RuleId;
    return owner.rule;
  }

  #leaf(node: FieldNode, owner: FieldOwner, m: unknown, t: unknown, path: string, mParent: Obj | undefined, tParent: Obj | undefined, out: Difference[]): void {
    if (owner.targetId) {
      if (typeof m !== 'string' || typeof t !== 'string') return void out.push(this.#difference(this.#shapeOr(owner, path), 'shape', node, path, m, t));
      if (this.#context.ids.learn(t, m, this.#guessing) === 'conflict') out.push(this.#difference(owner.rule, 'id', node, path, m, t));
      return;
    }
    if (same(m, t, node.timestamp ? this.#context.timeToleranceMs : 0)) return;
    const rule = this.#schemaIssueAt(path) ? (operations[this.#context.operation].shapeRule as RuleId) : this.#rule(node, owner, m, t, mParent, tParent, false);
    out.push(this.#difference(rule, 'value', node, path, m, t, owner.documentedValue === true));
  }

  #array(node: FieldNode, owner: FieldOwner | undefined, m: readonly unknown[], t: readonly unknown[], path: string, mParent: Obj | undefined, tParent: Obj | undefined, out: Difference[]): void {
    const element = node.element!;
    if (element.kind !== 'object') {
      const sort = (list: readonly unknown[]) => list.map((v) => JSON.stringify(v)).sort();
      if (!isDeepStrictEqual(sort(m), sort(t)) && owner !== undefined) out.push(this.#difference(this.#rule(node, owner, m, t, mParent, tParent, false), 'membership', node, path, m, t));
      return;
    }
    const pairs = matchElements(element, m, t, this.#context.ids, this.#context.timeToleranceMs);
    if ((pairs.missing.length > 0 || pairs.extra.length > 0) && owner !== undefined) {
      const describe = (list: readonly unknown[]) => list.map((e) => identityOf(element, e) || canonical(element, e));
      // A row a filter of the listing excludes is that filter's, whatever wrote it.
      const filtered = path === 'list' ? filterRule(this.#context.operation, this.#context.request, pairs.extra) : undefined;
      out.push(this.#difference(filtered ?? this.#rule(node, owner, m, t, mParent, tParent, false), 'membership', node, path, { count: m.length, missingInTarget: describe(pairs.missing) }, { count: t.length, extraInTarget: describe(pairs.extra) }));
    }
    for (const [i, j] of pairs.matched) {
      // A row paired with one of several alike: the IDs it pairs are a guess until a later answer tells the rows apart.
      const outer = this.#guessing;
      this.#guessing = outer || pairs.guessed.has(i);
      this.node(element, m[i], t[j], `${path}[${j}]`, mParent, tParent, out);
      this.#guessing = outer;
    }
    // The same rows in another order: only a SHOULD rule of the reference's ordering can say so, and only
    // under one frozen clock (the reference orders by creation time, which two running clocks do not share).
    if (owner?.order !== undefined && this.#context.timeToleranceMs === 0 && pairs.missing.length === 0 && pairs.extra.length === 0) {
      const order = [...pairs.matched].sort((a, b) => a[1] - b[1]).map(([i]) => i);
      if (order.some((i, k) => k > 0 && i < order[k - 1]!)) out.push(this.#difference(owner.order, 'order', node, path, m.map((e) => identityOf(element, e)), order.map((i) => identityOf(element, m[i]))));
    }
  }

  /** The owning rule of a difference at a node, refined and held to the level the node allows. */
  #rule(node: FieldNode, owner: FieldOwner, m: unknown, t: unknown, mParent: Obj | undefined, tParent: Obj | undefined, nullness: boolean): RuleId {
    const context = this.#context;
    const ownerContext: OwnerContext = { operation: context.operation, request: context.request, model: m, target: t, modelParent: mParent, targetParent: tParent };
    // The reference's null form is the model's null; a value the model has and the target nulls is the document's.
    const referenceNull = nullness && owner.nullRule !== undefined && m === null;
    const base = referenceNull ? owner.nullRule! : owner.rule;
    const refined = owner.refine?.(ownerContext);
    const writer = context.writer !== undefined && owner.aspect === 'balance' ? balanceWriter(context.writer, mParent) : context.writer;
    const written = !referenceNull && owner.aspect !== undefined && writer !== undefined ? writerRule(writer, owner.aspect) : undefined;
    // A reference-only shape may fail only SHOULD rules, unless the document shows the value itself.
    const referenceShape = node.provenance !== 'documented' && !(owner.documentedValue === true && !referenceNull);
    const allowed = (rule: RuleId | undefined): rule is RuleId => rule !== undefined && (!referenceShape || isShould(rule)) && fitsOperation(rule, context.operation);
    return [refined, written, base, OPERATION_RULES[context.operation]].find(allowed) ?? base;
  }

  /** `valueShown`: the document shows the model's value, where the node is the reference's only for another form of it (null). */
  #difference(rule: RuleId, kind: DifferenceKind, node: FieldNode, path: string, m: unknown, t: unknown, valueShown = false): Difference {
    return { rule, kind, key: node.key, path, model: m, target: t, documented: this.#documentedOp && (node.provenance === 'documented' || valueShown) && !isShould(rule) };
  }
}

/** Equal values: numbers within a relative 1e-9 (sums in another order), timestamps within the tolerance, anything else deeply. */
function same(m: unknown, t: unknown, toleranceMs: number): boolean {
  if (typeof m === 'number' && typeof t === 'number') return Math.abs(m - t) <= Math.max(toleranceMs, 1e-9 * Math.max(1, Math.abs(m), Math.abs(t)));
  return isDeepStrictEqual(m, t);
}

const identities = new WeakMap<FieldNode, string[]>();

/** The fields naming an element: the IDs the caller chose (`plan_id`, `customer_id`, …) and `version` (once per node: a listing asks for each row). */
function identityFields(node: FieldNode): string[] {
  let fields = identities.get(node);
  if (fields === undefined) identities.set(node, (fields = findIdentityFields(node)));
  return fields;
}

const chosenIds = new WeakMap<FieldNode, string[]>();

/** The fields of an element holding an ID its side chose (a record's `id`): compared through the program's ID map (once per node). */
function targetIdFields(node: FieldNode): string[] {
  let fields = chosenIds.get(node);
  if (fields === undefined) chosenIds.set(node, (fields = findTargetIdFields(node)));
  return fields;
}

function findTargetIdFields(node: FieldNode): string[] {
  return Object.entries(node.fields ?? {})
    .filter(([, child]) => {
      const ownership = ownershipOf(child.key);
      return child.kind === 'leaf' && ownership !== undefined && 'targetId' in ownership && ownership.targetId === true;
    })
    .map(([name]) => name);
}

function findIdentityFields(node: FieldNode): string[] {
  return Object.entries(node.fields ?? {})
    .filter(([name, child]) => {
      const ownership = ownershipOf(child.key);
      const targetChosen = ownership !== undefined && 'targetId' in ownership && ownership.targetId === true;
      return child.kind === 'leaf' && !targetChosen && (name === 'id' || name.endsWith('_id') || name === 'version');
    })
    .map(([name]) => name);
}

function identityOf(node: FieldNode, value: unknown): string {
  if (!isObj(value)) return '';
  return identityFields(node)
    .filter((name) => value[name] !== undefined && value[name] !== null)
    .map((name) => `${name}=${String(value[name])}`)
    .join(',');
}

/**
 * The element's compared content, IDs the target chooses left out, for matching equal elements: JSON
 * text written in one pass (a listing's hundreds of rows are each written once per comparison), of
 * objects by their nodes' fields, maps by sorted key, arrays as the sorted texts of their elements.
 */
function canonical(node: FieldNode, value: unknown, timestamps = true): string {
  return canonicalText(node, value, timestamps) ?? 'null';
}

/** Undefined where JSON.stringify leaves a value out: a node not compared, an ID the target chose, a timestamp left out, undefined itself. */
function canonicalText(node: FieldNode, value: unknown, timestamps: boolean): string | undefined {
  const ownership = ownershipOf(node.key);
  if (ownership !== undefined && ('notCompared' in ownership || ownership.targetId === true)) return undefined;
  if (node.timestamp && !timestamps) return undefined;
  if (node.kind === 'object' && isObj(value)) {
    const parts: string[] = [];
    for (const [name, child] of Object.entries(node.fields ?? {})) {
      const text = canonicalText(child, value[name], timestamps);
      if (text !== undefined) parts.push(`${JSON.stringify(name)}:${text}`);
    }
    return `{${parts.join(',')}}`;
  }
  if (node.kind === 'array' && Array.isArray(value)) return JSON.stringify(value.map((e) => canonicalText(node.element!, e, timestamps) ?? 'null').sort());
  if (node.kind === 'map' && isObj(value)) {
    const parts: string[] = [];
    for (const key of Object.keys(value).sort()) {
      const text = canonicalText(node.element!, value[key], timestamps);
      if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Whether every element has an identity no other element of the list has. */
function namesEachRow(node: FieldNode, list: readonly unknown[]): boolean {
  const seen = new Set<string>();
  for (const value of list) {
    const identity = identityOf(node, value);
    if (identity === '' || seen.has(identity)) return false;
    seen.add(identity);
  }
  return true;
}

/**
 * Pairs the elements of two arrays taken as sets: equal ones first, then same identity, then
 * (identity-less) in order. Under two running clocks (`timeToleranceMs` > 0) rows are equal whatever
 * their timestamps: a millisecond apart on each side, they would pair one row with another's twin
 * (an add-on attached to several entities, each row the same but for its ID and start).
 */
function matchElements(node: FieldNode, m: readonly unknown[], t: readonly unknown[], ids?: IdMap, timeToleranceMs = 0): { matched: [number, number][]; guessed: ReadonlySet<number>; missing: unknown[]; extra: unknown[] } {
  const freeM = new Set(m.keys());
  const freeT = new Set(t.keys());
  const matched: [number, number][] = [];
  /** Model rows paired with one of several target rows alike that the ID map did not tell apart. */
  const guessed = new Set<number>();
  // Rows alike but for the IDs each side chose (two records of one plan, one customer): the pair the ID map already knows, not the order of ties.
  const chosen = targetIdFields(node);
  const pairedBefore = (i: number, j: number) =>
    chosen.some((field) => {
      const id = (m[i] as Obj | undefined)?.[field];
      return typeof id === 'string' && ids!.targetOf(id) === (t[j] as Obj | undefined)?.[field];
    });
  const pairedElsewhere = (i: number, j: number) =>
    chosen.some((field) => {
      const id = (t[j] as Obj | undefined)?.[field];
      const model = typeof id === 'string' ? ids!.modelOf(id) : undefined;
      return model !== undefined && model !== (m[i] as Obj | undefined)?.[field];
    });
  /** Which of the candidates (target rows alike, `alike` of them at first) to pair model row `i` with: the one the ID map pairs it with, else the first, a guess. */
  const known = (i: number, candidates: number[], alike: number): number => {
    if (ids === undefined || chosen.length === 0 || alike < 2) return 0;
    const paired = candidates.findIndex((j) => pairedBefore(i, j));
    if (paired !== -1) return paired;
    guessed.add(i);
    // Not one the ID map pairs with another model row (two expired records of one plan, told apart when one was active).
    return Math.max(0, candidates.findIndex((j) => !pairedElsewhere(i, j)));
  };
  const pass = (key: (value: unknown) => string) => {
    // Each element's key once (listings of hundreds of rows): the free target elements by key, lowest index first.
    const byKey = new Map<string, number[]>();
    for (const j of freeT) {
      const k = key(t[j]);
      const same = byKey.get(k);
      if (same) same.push(j);
      else byKey.set(k, [j]);
    }
    const alike = new Map([...byKey].map(([k, js]) => [k, js.length]));
    for (const i of [...freeM]) {
      const k = key(m[i]);
      const candidates = byKey.get(k);
      const j = candidates?.splice(known(i, candidates, alike.get(k) ?? 0), 1)[0];
      if (j === undefined) continue;
      matched.push([i, j]);
      freeM.delete(i);
      freeT.delete(j);
    }
  };
  // Equal rows first, where rows share an identity; where every row names itself, identity alone pairs the same rows.
  if (!namesEachRow(node, m) || !namesEachRow(node, t)) pass((value) => `${identityOf(node, value)}|${canonical(node, value, timeToleranceMs === 0)}`);
  pass((value) => identityOf(node, value));
  if (identityFields(node).length === 0) {
    // Nothing names the elements (line items): the rest pair up in order.
    const restT = [...freeT];
    for (const [n, i] of [...freeM].entries()) {
      const j = restT[n];
      if (j === undefined) break;
      matched.push([i, j]);
      freeM.delete(i);
      freeT.delete(j);
    }
  }
  return { matched, guessed, missing: [...freeM].map((i) => m[i]), extra: [...freeT].map((j) => t[j]) };
}
