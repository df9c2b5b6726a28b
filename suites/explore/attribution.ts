/**
 * One bug, one rule: the rule a finding names is the one the bug breaks, the rule a scenario would
 * name, not whichever answer happened to show the difference. The field owners (ownership.ts) name
 * the rule of the node that differs, refined by the last write to the state it shows; a bug in a
 * write seen through a later read, or one that breaks a rule through another rule's field, still
 * needs localising. So a finding's program is replayed, in this process, against the model and
 * against the model broken by each fault of the fault catalogue (fake-server/faults/) that can change
 * anything the program saw (`mayChange`). A fault names the finding's rule only when it explains
 * what the target did: every difference of the diverging call, the calls before it agreeing, and
 * the same calls asked otherwise (`probesOf`: the diverging call sent again in other envelopes,
 * documented reads of what the program made, a read of a plan no one made, a listing in other pages
 * and filters) answered as the target answers them. Several explaining it: the owners' rule's fault,
 * then the one touching the fewest operations (the most specific). None: the owners' rule stands
 * (a cause that, taken away, makes the call agree excepted: another environment's calls, an envelope
 * variant, `callerCause`; a walk that pages of another size list right: `walkRule`; a difference in an answer only the
 * reference shows is named where a documented read of the same state shows it: `documentedShows`),
 * and the finding says which faults only mimic it. A bug nobody foresaw is mostly named by its
 * owners: a fault of another rule that reproduces its first difference is another bug that looks
 * alike (docs/exploration.md gives the figures, measured on faults left out of the catalogue).
 *
 * Replays of faults cost no request to the target; the probes cost one run of the program and its
 * probes there, a cause taken away one run as it is and one per cause. All are bounded by `budgetMs`
 * (the calls on the target by half of it at least).
 */
import { createFakeApp, type FakeApp } from '../../fake-server/app.ts';
import type { Fault } from '../../fake-server/faults/fault.ts';
import { FAULTS, operationsTouched } from '../../fake-server/faults/index.ts';
import { ruleById, type RuleId } from '../../spec/rules/catalogue.ts';
import { createNamespace } from '../framework/namespace.ts';
import type { Difference } from './compare.ts';
import { operations, type OperationName } from '../../spec/operations.ts';
import { ControlRefused, KnownStop, type Step } from './lockstep.ts';
import { ALLOWED_VARIANTS, VARIANTS, type VariantName } from './command.ts';
import type { ExploreTarget } from './targets.ts';
import { answerShape, nodesOf } from './fields.ts';
import { replaySteps, type Replayable } from './replay.ts';
import { inProcessTarget } from './targets.ts';

export interface Attribution {
  readonly rule: RuleId;
  /** `fault`: a fault of the catalogue reproduced the difference; `owner`: the owners' rule (ownership.ts), none did. */
  readonly how: 'fault' | 'owner';
  /** For the finding's message: what named the rule. */
  readonly note: string;
  /** Every fault that reproduces the difference (those of MUST rules included where the answer is reference-only, which may not name it). */
  readonly reproducing: readonly string[];
  /**
   * The difference was in an answer only the reference shows, and the program was run again on the
   * target with documented reads, one of which differs there: as a MUST rule's fault makes it
   * differ (`confirm`), or where its owners name the rule (`documentedShows`). The finding's evidence
   * is then this run: its calls, the read's index, its differences.
   */
  readonly evidence?: { readonly steps: readonly Step[]; readonly at: number; readonly differences: readonly Difference[]; readonly idPrefix: string; readonly start: number };
}

/** A finding as localisation reads it. */
export interface Localisable extends Replayable {
  readonly rule: RuleId;
  readonly at: number;
  readonly differences: readonly Difference[];
  /** A call before `at` that differs already, as it does on the target (a documented read made after the diverging call: that call). */
  readonly differsBefore?: number;
}

interface Candidate {
  readonly fault: Fault;
  /** How many differences of the diverging call the faulted model does not share with the target (0: it answered exactly as the target did). */
  readonly mismatches: number;
  readonly touches: number;
}

/** A fresh fake with the fault (about a millisecond): nothing of an earlier replay is in it, even for a fault that puts every key in one tenant. */
function faultedApp(fault: Fault): FakeApp {
  return createFakeApp({ faults: [fault], onInternalError: () => undefined });
}

/**
 * Whether the fault can change anything the program saw: a hook on the HTTP exchange can; a handler
 * override, when the program calls its operation; an input or output hook, when it rewrites one of
 * the program's requests or (200) answers as the model gave them. The rest need no replay.
 */
export function mayChange(fault: Fault, steps: readonly Pick<Step, 'operation' | 'request' | 'model' | 'resolve'>[]): boolean {
  if (fault.request !== undefined || fault.response !== undefined) return true;
  const calls = steps.filter((step) => !step.resolve && !step.operation.startsWith('control:'));
  const rewrites = (hook: (operation: OperationName, body: unknown) => unknown, operation: string, body: unknown) => {
    try {
      return JSON.stringify(hook(operation as OperationName, structuredClone(body))) !== JSON.stringify(body);
    } catch {
      return true;
    }
  };
  return calls.some(
    (step) =>
      (fault.handlers !== undefined && step.operation in fault.handlers) ||
      (fault.input !== undefined && rewrites(fault.input, step.operation, step.request)) ||
      (fault.output !== undefined && step.model.status === 200 && rewrites(fault.output, step.operation, step.model.body)),
  );
}

/**
 * A difference as text, to match a replay's differences with the finding's: the replay's ID prefix put
 * back to the finding's, array positions left out (arrays are compared as sets; their order is the
 * target's). Rows and IDs (membership, order and ID differences) by how many, not which: a replay
 * numbers its records from where its own calls left the counters, so the same bug shows other IDs.
 */
const described = (d: Difference, from: string, to: string) => {
  const values = COUNTED_KINDS.has(d.kind) ? [counted(d.model), counted(d.target)] : [generatedIdsLeftOut(d.model, from), generatedIdsLeftOut(d.target, from)];
  return JSON.stringify([d.key, d.kind, d.path.replaceAll(/\[\d+\]/g, '[]'), ...values]).replaceAll(from, to);
};

/** A value with the IDs the server made left out (an `id` not of the program's prefix): each side makes its own, so the same bug shows other ones (a check's flag record). */
function generatedIdsLeftOut(value: unknown, prefix: string): unknown {
  if (Array.isArray(value)) return value.map((item) => generatedIdsLeftOut(item, prefix));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, key === 'id' && typeof inner === 'string' && !inner.includes(prefix) ? '…' : generatedIdsLeftOut(inner, prefix)]));
}

const COUNTED_KINDS: ReadonlySet<Difference['kind']> = new Set(['membership', 'order', 'id']);

/** A value with its lists as their lengths and its strings left out: what a difference of rows says but which rows. */
function counted(value: unknown): unknown {
  if (Array.isArray(value)) return value.length;
  if (typeof value === 'string') return '…';
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, counted(inner)]));
  return value;
}

/** The differences of the diverging call when the program is replayed against `app` (the calls before it agreeing), undefined when it does not differ there the same way. */
async function replayedDifferences(finding: Localisable, app: FakeApp, salt: string): Promise<{ differences: readonly Difference[]; prefix: string } | undefined> {
  const main = finding.differences[0]!;
  const steps = finding.steps.filter((step) => !step.resolve && step.index <= finding.at);
  let replay;
  try {
    replay = await replaySteps({ ...finding, steps }, inProcessTarget(app, createNamespace({ prefix: 'conf', seed: 1, salt }), finding.apiVersion));
  } catch (cause) {
    // The control plane refused, or the program ended at a known difference of the reference before the diverging call.
    if (cause instanceof ControlRefused || cause instanceof KnownStop) return undefined;
    throw cause;
  }
  const at = replay.replayed.get(finding.at);
  if (at === undefined) return undefined;
  const before = finding.differsBefore === undefined ? undefined : replay.replayed.get(finding.differsBefore);
  if (replay.lockstep.steps.slice(0, at).some((step, i) => step.differences.length > 0 && i !== before)) return undefined;
  const differences = replay.lockstep.steps[at]!.differences;
  return differences.some((d) => d.key === main.key && d.kind === main.kind) ? { differences, prefix: replay.prefix } : undefined;
}

/**
 * Whether the reference model, replaying the program against a healthy model of its own, differs
 * there the same way: then the difference is the oracle's (an order two sides may break ties in
 * differently, an ID each side chose), whatever the target did, and no rule is charged.
 */
export async function modelDiffersFromItself(finding: Localisable, healthy: FakeApp = createFakeApp({ onInternalError: () => undefined })): Promise<boolean> {
  return (await replayedDifferences(finding, healthy, 'healthy').catch(() => undefined)) !== undefined;
}

/** Replays the program against the model broken by `fault`; a candidate when it differs first at the same call, the same way. */
async function reproduces(finding: Localisable, fault: Fault): Promise<Candidate | undefined> {
  const replayed = await replayedDifferences(finding, faultedApp(fault), fault.rule);
  if (replayed === undefined) return undefined;
  const { differences, prefix } = replayed;
  const theirs = new Set(differences.map((d) => described(d, prefix, finding.idPrefix)));
  const ours = new Set(finding.differences.map((d) => described(d, finding.idPrefix, finding.idPrefix)));
  const mismatches = [...theirs].filter((d) => !ours.has(d)).length + [...ours].filter((d) => !theirs.has(d)).length;
  const touched = operationsTouched(fault);
  return { fault, mismatches, touches: touched?.size ?? Number.POSITIVE_INFINITY };
}

/**
 * The documented reads that show what a program made: each customer's records, entities and pools, its
 * balance of each feature, each plan. `customerFirst`: that customer's reads before the others'.
 */
function documentedReads(steps: readonly Pick<Step, 'operation' | 'request' | 'resolve' | 'model'>[], customerFirst?: unknown): { operation: OperationName; body: Record<string, unknown> }[] {
  const ids = (field: string, operations?: readonly string[]) => [
    ...new Set(steps.flatMap((step) => (step.resolve || (operations && !operations.includes(step.operation)) ? [] : [(step.request as Record<string, unknown> | null)?.[field]]).filter((id): id is string => typeof id === 'string'))),
  ];
  const customers = ids('customer_id').sort((a, b) => Number(b === customerFirst) - Number(a === customerFirst));
  const features = ids('feature_id', ['features.create']);
  const reads = [
    ...customers.flatMap((customer_id) => (['subscriptions.list', 'purchases.list', 'entities.list', 'licenses.list'] as const).map((operation) => ({ operation, body: { customer_id } }))),
    ...customers.flatMap((customer_id) => features.map((feature_id) => ({ operation: 'balances.check' as const, body: { customer_id, feature_id, required_balance: 0 } }))),
    ...ids('plan_id', ['plans.create', 'plans.update']).map((plan_id) => ({ operation: 'plans.get' as const, body: { plan_id } })),
    // Each version an update left behind, read by its number: what a change reached of the older ones.
    ...olderVersions(steps).map(([plan_id, version]) => ({ operation: 'plans.get' as const, body: { plan_id, version } })),
  ];
  return reads.slice(0, MAX_READS);
}

/** The plans' versions the model made that a later update left behind, as [plan ID, version]. */
function olderVersions(steps: readonly Pick<Step, 'operation' | 'request' | 'resolve' | 'model'>[]): [string, number][] {
  const made = steps.flatMap((step) => {
    const body = step.model.body as { id?: unknown; version?: unknown } | null;
    return !step.resolve && (step.operation === 'plans.create' || step.operation === 'plans.update') && step.model.status === 200 && typeof body?.id === 'string' && typeof body.version === 'number' ? [[body.id, body.version] as [string, number]] : [];
  });
  const latest = new Map<string, number>();
  for (const [plan, version] of made) latest.set(plan, Math.max(version, latest.get(plan) ?? 0));
  return [...new Map(made.filter(([plan, version]) => version < latest.get(plan)!).map((pair) => [pair.join(' '), pair])).values()];
}

/** Documented reads tried after a program, at most. */
const MAX_READS = 40;

/** A call after the program, to replay: a documented read, or the diverging call asked otherwise. */
interface Probe {
  readonly operation: OperationName;
  readonly body: Record<string, unknown>;
  readonly variant?: VariantName;
}

/** A probe as a step of a program to replay. */
function readStep(read: Probe, index: number): Step {
  return { index, command: 'probe (localisation)', operation: read.operation, request: read.body, ...(read.variant ? { variant: read.variant } : {}), model: { status: 0, body: null }, target: { status: 0, body: null }, differences: [] };
}

/** Whether a step shows a difference in what interface.md shows, like `like` (same node, same kind) when given. */
function documentedDifference(step: Step | undefined, like?: Difference): Difference | undefined {
  return step?.differences.find((d) => shownByDocument(step.operation, d.key) && (like === undefined || (d.key === like.key && d.kind === like.kind)));
}

/**
 * Confirms a fault of a MUST rule through what interface.md shows: a documented read after the
 * program where the model broken by the fault differs, run after the program again on the target,
 * differs there too, the same way. Costs one run of the program (and the read) on the target.
 */
async function confirm(finding: Localisable, fault: Fault, target: ExploreTarget): Promise<Attribution['evidence']> {
  const program = finding.steps.filter((step) => !step.resolve && step.index <= finding.at);
  const first = 1 + Math.max(...finding.steps.map((step) => step.index));
  const reads = documentedReads(program).map((read, i) => readStep(read, first + i));
  try {
    const faulted = await replaySteps({ ...finding, steps: [...program, ...reads] }, inProcessTarget(faultedApp(fault), createNamespace({ prefix: 'conf', seed: 1, salt: fault.rule }), finding.apiVersion));
    const read = reads.find((step) => documentedDifference(faulted.lockstep.steps[faulted.replayed.get(step.index) ?? -1]));
    if (read === undefined) return undefined;
    const expected = documentedDifference(faulted.lockstep.steps[faulted.replayed.get(read.index)!])!;
    const again = await replaySteps({ ...finding, steps: [...program, read] }, target);
    const at = again.replayed.get(read.index);
    const shown = at === undefined ? undefined : documentedDifference(again.lockstep.steps[at], expected);
    if (at === undefined || shown === undefined) return undefined;
    return { steps: again.lockstep.steps, at, differences: [shown, ...again.lockstep.steps[at]!.differences.filter((d) => d !== shown)], idPrefix: again.prefix, start: again.start };
  } catch {
    // The target or the model refused to go on (a known difference, a control call): not confirmed.
    return undefined;
  }
}

/**
 * A finding in an answer only the reference shows (a SHOULD rule's) that no fault explains: the same
 * calls run again on the target with documented reads of what they made, the diverging call's
 * customer's first, placed just before the diverging call (the state it showed, as the writes
 * before it left it), then, where none differs there, after it (the diverging call is the write that
 * broke it). One that differs in what interface.md shows names the finding by its owners there (a
 * MUST rule's difference first): the bug breaks what the document states, and showed first in a
 * reference answer (a clock move's missed reset seen in customers.get before any check). Read
 * before the call, a difference is not charged to the call itself (a preview, which changes
 * nothing, after which any difference would be "the preview's"). That run becomes the evidence.
 */
async function documentedShows(finding: Localisable, target: ExploreTarget, stopped: () => boolean): Promise<{ readonly rule: RuleId; readonly evidence: NonNullable<Attribution['evidence']>; readonly differsBefore?: number } | undefined> {
  const program = finding.steps.filter((step) => !step.resolve && step.index <= finding.at);
  const diverging = program.at(-1)!;
  const customer = (diverging.request as Record<string, unknown> | undefined)?.['customer_id'];
  const first = 1 + Math.max(...finding.steps.map((step) => step.index));
  const reads = documentedReads(program, customer).slice(0, PROBE_READS).map((read, i) => readStep(read, first + i));
  for (const steps of [[...program.slice(0, -1), ...reads, diverging], [...program, ...reads]]) {
    if (stopped()) break;
    try {
      const again = await replaySteps({ ...finding, steps }, target, stopped);
      for (const read of reads) {
        const at = again.replayed.get(read.index);
        const step = at === undefined ? undefined : again.lockstep.steps[at];
        const documented = step?.differences.filter((d) => d.documented || shownByDocument(step.operation, d.key)) ?? [];
        const shown = documented.find((d) => ruleById.get(d.rule)?.level === 'MUST') ?? documented[0];
        if (step !== undefined && shown !== undefined) {
          const divergingAt = again.replayed.get(diverging.index);
          return { rule: shown.rule, evidence: { steps: again.lockstep.steps.slice(0, at! + 1), at: at!, differences: [shown, ...step.differences.filter((d) => d !== shown)], idPrefix: again.prefix, start: again.start }, ...(divergingAt !== undefined && divergingAt < at! ? { differsBefore: divergingAt } : {}) };
        }
      }
    } catch {
      // The target or the model refused to go on: nothing documented shown this way.
    }
  }
  return undefined;
}

/** Listings walked page by page (lockstep.ts): a fault of paging and one of filtering can leave out the same row. */
const LISTINGS: ReadonlySet<string> = new Set(['subscriptions.list', 'purchases.list', 'entities.list']);

/** The diverging listing asked otherwise: in pages of one and of two, without each of its filters in turn, its search in other cases. */
function listingProbes(step: Pick<Step, 'operation' | 'request'>): Probe[] {
  const body = step.request as Record<string, unknown>;
  const operation = step.operation as OperationName;
  const filters = ['start_cursor', 'statuses', 'search', 'processors', 'plans', 'plan_id', 'customer_id'].filter((name) => name in body);
  const search = typeof body['search'] === 'string' ? body['search'] : undefined;
  const cases = search === undefined ? [] : [search.toUpperCase(), search.charAt(0).toUpperCase() + search.slice(1).toLowerCase()].filter((s) => s !== search).map((s) => ({ ...body, search: s }));
  return [{ ...body, limit: 1 }, { ...body, limit: 2 }, ...filters.map((name) => Object.fromEntries(Object.entries(body).filter(([key]) => key !== name))), ...cases].map((probe) => ({ operation, body: probe }));
}

/**
 * The diverging call sent again in envelopes that tell causes apart (plain, without the version
 * header, in another spelling of the headers, with a key no target issues; a listing in other pages
 * and filters), then a read of a plan no one made and documented reads of what the program made: a
 * fault that only mimics the target's first difference (refusing every request that carries a
 * header, where the target cannot read a JSON body) answers some of them otherwise than the target.
 */
function probesOf(finding: Localisable, program: readonly Pick<Step, 'operation' | 'request' | 'resolve' | 'model'>[]): { resent: Probe[]; others: Probe[] } {
  const diverging = finding.steps.find((step) => step.index === finding.at);
  // A read of a plan no one made: whether the target reads a request's body at all.
  const others = [{ operation: 'plans.get' as const, body: { plan_id: `${finding.idPrefix}plan_probe_unknown` } }, ...documentedReads(program).slice(0, PROBE_READS)];
  if (diverging === undefined || diverging.operation.startsWith('control:')) return { resent: [], others };
  const operation = diverging.operation as OperationName;
  const body = diverging.request as Record<string, unknown>;
  const resent = RESENT_IN.map((variant) => ({ operation, body, ...(variant === 'plain' ? {} : { variant }) }));
  // A read asked of IDs no one made: a read that finds what a delete kept, or one that finds (makes) whatever it is asked, answer it apart.
  const unknown = operation.endsWith('.get') ? [{ operation, body: Object.fromEntries(Object.entries(body).map(([key, value]) => [key, key.endsWith('_id') && typeof value === 'string' ? `${finding.idPrefix}probe_unknown` : value])) }] : [];
  return { resent: [...(LISTINGS.has(operation) ? listingProbes(diverging) : []), ...resent], others: [...unknown, ...others] };
}

/** The envelopes the diverging call is sent again in, as probes. */
const RESENT_IN: readonly VariantName[] = ['plain', 'no-version', 'header-case', 'unknown-key'];

/** Documented reads among the probes, at most (each costs a request to the target). */
const PROBE_READS = 12;

/**
 * How differently from the target the model broken by each candidate answers the probes: the
 * program and its probes run once on the target and once on each candidate's model. The diverging
 * call sent again must differ (against the healthy model) exactly as on the target; every other probe
 * must show on the target what the candidate makes it show (the target may differ there for reasons
 * of its own). Undefined where the target could not be asked (it refused to go on).
 */
async function probeMisses(finding: Localisable, candidates: readonly Candidate[], target: ExploreTarget, stopped: () => boolean): Promise<Map<Candidate, number> | undefined> {
  const program = finding.steps.filter((step) => !step.resolve && step.index <= finding.at);
  const first = 1 + Math.max(...finding.steps.map((step) => step.index));
  const { resent, others } = probesOf(finding, program);
  const probes = [...resent, ...others].map((probe, i) => readStep(probe, first + i));
  const symmetric = (i: number) => i < resent.length;
  const shown = async (on: ExploreTarget, stop?: () => boolean) => {
    const replay = await replaySteps({ ...finding, steps: [...program, ...probes] }, on, stop);
    return probes.map((probe) => new Set((replay.lockstep.steps[replay.replayed.get(probe.index) ?? -1]?.differences ?? []).map((d) => described(d, replay.prefix, finding.idPrefix))));
  };
  let onTarget: Set<string>[];
  try {
    onTarget = await shown(target, stopped);
  } catch {
    return undefined;
  }
  const misses = new Map<Candidate, number>();
  for (const candidate of candidates) {
    const onFault = await shown(inProcessTarget(faultedApp(candidate.fault), createNamespace({ prefix: 'conf', seed: 1, salt: candidate.fault.rule }), finding.apiVersion)).catch(() => undefined);
    misses.set(candidate, onFault === undefined ? Number.POSITIVE_INFINITY : onFault.reduce((sum, theirs, i) => sum + [...theirs].filter((d) => !onTarget[i]!.has(d)).length + (symmetric(i) ? [...onTarget[i]!].filter((d) => !theirs.has(d)).length : 0), 0));
  }
  return misses;
}

/** Each paged listing's rule of a whole walk, and the most rows one page of it holds. */
const WALKS: Readonly<Record<string, { readonly rule: RuleId; readonly most: number }>> = {
  'subscriptions.list': { rule: 'LIST-WALK-EVERY-MATCH-ONCE', most: 200 },
  'purchases.list': { rule: 'LIST-WALK-EVERY-MATCH-ONCE', most: 200 },
  'entities.list': { rule: 'ENT-CURSOR-WALK', most: 5000 },
};

/** The page size of the walk asked in small pages (`walkRule`). */
const SMALL_PAGE = 20;

/**
 * A paged listing that holds other rows than the model's, where no fault explains it: the same
 * listing asked otherwise on the target, as one page of the largest size and as a walk of small
 * pages. Where the other way lists the rows as the model does, the rows go missing or twice in how
 * pages are cut at the size asked (between pages, or past a size the page cannot hold), and the
 * walk's rule names the bug, not the write the rows show. Undefined where it is no such listing,
 * or the other way differs too.
 */
async function walkRule(finding: Localisable, target: ExploreTarget, stopped: () => boolean): Promise<RuleId | undefined> {
  const diverging = finding.steps.find((step) => step.index === finding.at);
  const walk = diverging === undefined ? undefined : WALKS[diverging.operation];
  const rows = finding.differences.find((d) => d.kind === 'membership');
  if (diverging === undefined || walk === undefined || rows === undefined || diverging.around !== undefined || walk.rule === finding.rule) return undefined;
  const { start_cursor: _, limit, ...body } = diverging.request as Record<string, unknown>;
  const program = finding.steps.filter((step) => !step.resolve && step.index <= finding.at);
  const next = 1 + Math.max(...finding.steps.map((step) => step.index));
  // One page first; then, where the listing was asked in pages larger than small ones, a walk of small pages.
  const limits = [walk.most, ...(typeof limit === 'number' && limit > SMALL_PAGE ? [SMALL_PAGE] : [])];
  for (const otherLimit of limits) {
    if (stopped()) break;
    const probe = readStep({ operation: diverging.operation as OperationName, body: { ...body, limit: otherLimit } }, next);
    try {
      const replay = await replaySteps({ ...finding, steps: [...program, probe] }, target, stopped);
      const asked = replay.lockstep.steps[replay.replayed.get(diverging.index) ?? -1];
      const otherwise = replay.lockstep.steps[replay.replayed.get(probe.index) ?? -1];
      // The listing as asked must still differ in its rows, and asked otherwise not.
      if (asked === undefined || otherwise === undefined || !asked.differences.some((d) => d.kind === 'membership' && d.key === rows.key)) return undefined;
      if (otherwise.target.status === 200 && !otherwise.differences.some((d) => d.kind === 'membership')) return walk.rule;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Who a step speaks for: its environment (the program's own, or the organisation's other), or another tenant's key. */
const speakerOf = (step: Pick<Step, 'caller' | 'variant'>) => (step.variant === 'other-tenant' ? 'other-tenant' : (step.caller?.environment ?? 'own'));

/** A step sent plain where it was sent in an envelope variant. */
function sentPlain(step: Step): Step {
  const { variant: _, headers: __, ...plain } = step;
  return plain;
}

/**
 * Callers and envelopes as the cause, where no fault explains a finding: the program run again on
 * the target without the calls made for another environment or tenant, then with the calls of each
 * envelope variant it used sent plain. Where the diverging call then agrees with the model (and no
 * call before it differs), those calls made the difference: what another environment or tenant did
 * shows in this one (AUTH-TENANT-ISOLATION), or the target read a variant's envelope otherwise than
 * the same call sent plain (the variant's rule: CONV-POST-JSON for a media type, AUTH-BEARER-REQUIRED
 * for the credentials), whichever later read showed it; and, for a program sent plain, with every
 * call before the diverging one naming its charset: agreeing then, the target read a plain JSON body
 * otherwise (CONV-POST-JSON).
 * A variant of the diverging call itself is compare.ts's question already.
 */
async function callerCause(finding: Localisable, target: ExploreTarget, stopped: () => boolean): Promise<{ readonly rule: RuleId; readonly note: string } | undefined> {
  const program = finding.steps.filter((step) => !step.resolve && step.index <= finding.at);
  const diverging = program.at(-1);
  if (diverging === undefined || diverging.index !== finding.at) return undefined;
  const main = finding.differences[0]!;
  const trials: { steps: Step[]; rule: RuleId; note: string }[] = [];
  // Clock moves stay: they move a program's environments together, as the model does.
  const elsewhere = program.filter((step) => step !== diverging && !step.operation.startsWith('control:') && speakerOf(step) !== speakerOf(diverging));
  if (elsewhere.length > 0) {
    const kept = program.filter((step) => !elsewhere.includes(step));
    trials.push({ steps: kept, rule: 'AUTH-TENANT-ISOLATION', note: `without the ${elsewhere.length} call(s) made for another environment or tenant, ${diverging.operation} agrees with the model: what they did shows where it must not` });
  }
  const variants = new Set(program.filter((step) => step !== diverging && (ALLOWED_VARIANTS as readonly string[]).includes(step.variant ?? '')).map((step) => step.variant as (typeof ALLOWED_VARIANTS)[number]));
  for (const variant of variants) {
    const rule = VARIANTS[variant].rule;
    trials.push({ steps: program.map((step) => (step !== diverging && step.variant === variant ? sentPlain(step) : step)), rule, note: `with the calls sent in the ${variant} envelope sent plain, ${diverging.operation} agrees with the model: the target read that envelope otherwise than the same call plain, which ${rule} decides` });
  }
  // The other way round: every call before the diverging one sent with its charset named (`application/json; charset=utf-8`). Where
  // the diverging call, still plain, then agrees, the target read an earlier plain JSON body otherwise (as another encoding than
  // UTF-8, say), which CONV-POST-JSON decides. The diverging call stays plain: a variant's answer is compared as a variant's (a refusal's
  // code is the variant's question there), so agreeing in a variant would say nothing.
  if (program.every((step) => step.variant === undefined || step.variant === 'plain')) {
    trials.push({
      // A call of another caller keeps its own headers (a variant's would replace its key).
      steps: program.map((step) => (step === diverging || step.operation.startsWith('control:') || step.caller !== undefined ? step : { ...step, variant: 'charset' })),
      rule: 'CONV-POST-JSON',
      note: `with every call before it sent with its charset named, ${diverging.operation} agrees with the model: the target read a plain application/json body otherwise, which CONV-POST-JSON decides`,
    });
  }
  if (trials.length === 0) return undefined;
  // The control: the program as it is still differs there, the same way (else agreeing without a cause would say nothing).
  try {
    const again = await replaySteps({ ...finding, steps: program }, target, stopped);
    const at = again.replayed.get(finding.at);
    if (at === undefined || !again.lockstep.steps[at]!.differences.some((d) => d.key === main.key && d.kind === main.kind)) return undefined;
  } catch {
    return undefined;
  }
  for (const trial of trials) {
    if (stopped()) break;
    try {
      const replay = await replaySteps({ ...finding, steps: trial.steps }, target, stopped);
      const at = replay.replayed.get(finding.at);
      if (at === undefined || replay.lockstep.steps.slice(0, at + 1).some((step) => step.differences.length > 0)) continue;
      // The same call, answered alike: the calls left out or sent plain made the difference.
      if (replay.lockstep.steps[at]!.operation === diverging.operation) return { rule: trial.rule, note: `${trial.note} (${finding.rule} owns ${main.path || main.key} where it differs)` };
    } catch {
      // The target or the model refused to go on without them: no answer this way.
    }
  }
  return undefined;
}

/** Candidates probed, at most: the best ranked (each costs a replay in this process, none on the target). */
const MOST_PROBED = 8;

/**
 * The rule of the fault that explains the finding, if one does, else the owners' (see the module's
 * comment). Without `target`, a fault that reproduces the diverging call exactly explains it (no probe
 * can be sent). With it, a MUST rule's fault seen only in a reference-only answer is confirmed
 * through a documented read on it (`confirm`). `catalogue` narrows the faults tried
 * (`explore --can-fail --unforeseen` leaves one out).
 */
export async function localise(
  finding: Localisable,
  options: { readonly budgetMs?: number; readonly pace?: () => Promise<void>; readonly target?: ExploreTarget; readonly catalogue?: Iterable<Fault> } = {},
): Promise<Attribution> {
  const { budgetMs = 30_000, pace, target, catalogue = FAULTS.values() } = options;
  const deadline = Date.now() + budgetMs;
  const found: Candidate[] = [];
  const steps = finding.steps.filter((step) => step.index <= finding.at);
  // The owners' own rule's fault first, then those of the diverging operation, then the others.
  const diverging = finding.steps.find((step) => step.index === finding.at)?.operation ?? '';
  const order = (fault: Fault) => (fault.rule === finding.rule ? 0 : operationsTouched(fault)?.has(diverging) ? 1 : 2);
  // Once the owners' own rule's fault reproduces it exactly, only faults of the same operations may do as well (siblings: the
  // delete that keeps the customer, or only its entities), and those of the diverging call (a plan found after its delete: the
  // delete kept it, or the read finds any plan; a read of a plan no one made tells them apart); the others are not tried (each is a replay).
  let ownersOperations: ReadonlySet<string> | undefined;
  const sibling = (fault: Fault) => [...(operationsTouched(fault) ?? [])].some((operation) => ownersOperations!.has(operation) || operation === diverging);
  for (const fault of [...catalogue].sort((a, b) => order(a) - order(b))) {
    if (Date.now() > deadline) break;
    if (ownersOperations !== undefined && !sibling(fault)) continue;
    if (!mayChange(fault, steps)) continue;
    await pace?.();
    const candidate = await reproduces(finding, fault).catch(() => undefined);
    if (candidate !== undefined) found.push(candidate);
    if (candidate?.mismatches === 0 && fault.rule === finding.rule) ownersOperations = operationsTouched(fault) ?? new Set();
  }
  const main = finding.differences[0]!;
  // A MUST rule only where the difference is in what interface.md shows (a reference-only answer fails SHOULD rules only).
  // A key refused (401) on one side: "every endpoint requires" the bearer key, so the document decides it for an operation only the reference has too.
  const refusedKey = main.kind === 'status' && [main.model, main.target].some((side) => typeof side === 'string' && side.startsWith('401'));
  const documented = main.documented || refusedKey || shownByDocument(finding.steps.find((step) => step.index === finding.at)?.operation ?? '', main.key);
  const allowed = found.filter((c) => documented || ruleById.get(c.fault.rule)?.level !== 'MUST');
  const rank = (c: Candidate) => [c.mismatches, c.fault.rule === finding.rule ? 0 : 1, c.touches] as const;
  const byRank = (list: readonly Candidate[]) => [...list].sort((a, b) => compareTuples(rank(a), rank(b)));
  const ranked = byRank(allowed);
  const reproducing = found.map((c) => c.fault.rule);
  // Where the answer is the reference's only, a documented read of the same state (documentedShows)
  // localised in turn: there a fault of a MUST rule may name the bug, and the read is the evidence.
  let documentedRead: Promise<Attribution | undefined> | undefined;
  const inDocumentedRead = (): Promise<Attribution | undefined> =>
    (documentedRead ??= (async () => {
      // The calls on the target get the rest of the budget, half of it at least (as the probes below).
      const readsEnd = Math.max(deadline, Date.now() + budgetMs / 2);
      const shown = target === undefined ? undefined : await documentedShows(finding, target, () => Date.now() > readsEnd);
      if (shown === undefined) return undefined;
      const { evidence } = shown;
      const read = evidence.steps[evidence.at]!;
      const seen = `${finding.rule} owns ${main.path || main.key} of an answer only the reference shows; ${read.operation}, a documented read of the same state, shows a difference in what interface.md shows`;
      const inRead = await localise(
        { ...finding, steps: evidence.steps, at: evidence.at, differences: evidence.differences, rule: shown.rule, idPrefix: evidence.idPrefix, start: { ...finding.start, at: evidence.start }, ...(shown.differsBefore !== undefined ? { differsBefore: shown.differsBefore } : {}) },
        { ...options, budgetMs: Math.max(1000, deadline - Date.now()) },
      );
      if (inRead.how === 'fault') return { ...inRead, evidence, note: `${seen}, and ${inRead.note}` };
      return { rule: shown.rule, how: 'owner', reproducing, evidence, note: `${seen}, which ${shown.rule} owns (the rule of the write whose effect it shows)` } satisfies Attribution;
    })());
  // A fault of a MUST rule reproduces it exactly, but may not name it here: first, whether a documented read shows it.
  if (!documented && found.some((c) => c.mismatches === 0 && !allowed.includes(c))) {
    const named = await inDocumentedRead();
    if (named?.how === 'fault') return named;
  }
  // A fault names the rule only when it explains what the target did: every difference of the
  // diverging call, and the same calls asked otherwise (probesOf) answered as the target answers
  // them. One that only mimics the first difference is another bug than the target's: the owners'
  // rule, which decides the field that differs, names it better (measured on faults left out of the
  // catalogue: docs/exploration.md).
  // Where the owners' rule's fault alone reproduces it exactly, both name the same rule: no probe is
  // needed. Another reproducing it as exactly is probed too (a customer kept by its delete, or its
  // entities kept alone, show the same extra entity; customers.get then tells them apart).
  const exact = ranked.filter((c) => c.mismatches === 0).slice(0, MOST_PROBED);
  const agreed = exact.length === 1 && exact[0]!.fault.rule === finding.rule;
  // The calls on the target get the rest of the budget, half of it at least (a slow target's program and probes take long); given up, no probe counts.
  const probesEnd = Math.max(deadline, Date.now() + budgetMs / 2);
  const probesStopped = () => Date.now() > probesEnd;
  const misses = exact.length > 0 && !agreed && target !== undefined ? await probeMisses(finding, exact, target, probesStopped) : undefined;
  const explaining = misses === undefined ? exact : exact.filter((c) => misses.get(c) === 0);
  const best = explaining[0];
  const first = byRank(found.filter((c) => c.mismatches === 0))[0];
  if (first !== undefined && first !== best && !allowed.includes(first) && target !== undefined) {
    const evidence = await confirm(finding, first.fault, target);
    if (evidence !== undefined) {
      const read = evidence.steps[evidence.at]!.operation;
      return { rule: first.fault.rule, how: 'fault', reproducing, evidence, note: `the fault of the catalogue that breaks ${first.fault.rule} (${first.fault.breaks}) reproduces this difference, and ${read} after the same calls shows it on the target as that fault does` };
    }
  }
  if (best === undefined) {
    const caused = target === undefined ? undefined : await callerCause(finding, target, probesStopped);
    if (caused !== undefined) return { rule: caused.rule, how: 'owner', reproducing, note: caused.note };
    const walk = target === undefined ? undefined : await walkRule(finding, target, probesStopped);
    if (walk !== undefined) {
      return { rule: walk, how: 'owner', reproducing, note: `the same listing asked in pages of another size lists the rows as the model does: they go missing or twice in how the pages are cut, which ${walk} decides (${finding.rule} owns ${main.path || main.key} where it differs)` };
    }
    const shown = !documented && ruleById.get(finding.rule)?.level !== 'MUST' ? await inDocumentedRead() : undefined;
    if (shown !== undefined) return shown;
    const mimics = ranked.filter((c) => c.fault.rule !== finding.rule).map((c) => c.fault.rule);
    const why =
      found.length === 0
        ? 'no fault of the catalogue reproduces it'
        : allowed.length === 0
          ? 'no fault of the catalogue reproduces it in what interface.md shows'
          : mimics.length === 0
            ? `the fault of ${finding.rule} reproduces its first difference`
            : `${listed(mimics)} ${mimics.length === 1 ? 'reproduces' : 'reproduce'} the first difference, but not ${misses === undefined ? 'all of the call' : 'the call and the same calls asked otherwise'} as the target answers them: another bug`;
    return { rule: finding.rule, how: 'owner', reproducing, note: `${why}; ${finding.rule} owns ${main.path || main.key} where it differs (after a write, the rule of the write whose effect it shows)` };
  }
  const others = explaining.filter((c) => c !== best).map((c) => c.fault.rule);
  return {
    rule: best.fault.rule,
    how: 'fault',
    reproducing,
    note: `the fault of the catalogue that breaks ${best.fault.rule} (${best.fault.breaks}) reproduces this difference exactly${misses === undefined ? '' : ', and answers the same calls asked otherwise as the target does'}${others.length > 0 ? `; so do ${listed(others)}` : ''}${agreed ? `; ${finding.rule} owns ${main.path || main.key} where it differs` : ''}`,
  };
}

/** Rule IDs for a message: the first four, then an ellipsis. */
const listed = (rules: readonly string[]) => `${rules.slice(0, 4).join(', ')}${rules.length > 4 ? ', …' : ''}`;

/** Whether interface.md shows the node of an answer of `operation` (a status or code of a documented operation too). */
function shownByDocument(operation: string, key: string): boolean {
  const op = operations[operation as OperationName];
  if (op === undefined || op.provenance !== 'documented') return false;
  const node = nodesOf(answerShape(operation as OperationName)).find((n) => n.key === key);
  return node === undefined || node.provenance === 'documented';
}

function compareTuples(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
