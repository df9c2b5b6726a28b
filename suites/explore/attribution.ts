/**
 * One bug, one rule: the rule a finding names is the one the bug breaks, the rule a scenario would
 * name, not whichever answer happened to show the difference. The field owners (ownership.ts) name
 * the rule of the node that differs, refined by the last write to the state it shows; a bug in a
 * write seen through a later read, or one that breaks a rule through another rule's field, still
 * needs localising. So a finding's program is replayed, in this process, against the model and
 * against the model broken by each fault of the fault catalogue (fake-server/faults/) that can change
 * anything the program saw (`mayChange`): a fault that reproduces the same difference at
 * the same call (the same node differing the same way, the calls before it agreeing) is a known way
 * of breaking its rule, and names the finding's rule. Several reproducing it: the one whose answer
 * there differs from the model's most nearly as the target's does (every difference of the call, not
 * only the first), then the rule the owners named, then the fault that touches the fewest operations
 * (the most specific). None: the owners' rule stands (the write whose effect first
 * differs, where the node holds state), and the finding says so.
 *
 * Replays cost no request to the target; they are bounded by `budgetMs` all the same.
 */
import { createFakeApp, type FakeApp } from '../../fake-server/app.ts';
import type { Fault } from '../../fake-server/faults/fault.ts';
import { FAULTS, operationsTouched } from '../../fake-server/faults/index.ts';
import { ruleById, type RuleId } from '../../spec/rules/catalogue.ts';
import { createNamespace } from '../framework/namespace.ts';
import type { Difference } from './compare.ts';
import { operations, type OperationName } from '../../spec/operations.ts';
import { ControlRefused, type Step } from './lockstep.ts';
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
   * A MUST rule's fault reproduced a difference in an answer only the reference shows: the program
   * was run again on the target with a documented read after it, which differs as that fault makes
   * it differ. The finding's evidence is then this run: its calls, the read's index, its differences.
   */
  readonly evidence?: { readonly steps: readonly Step[]; readonly at: number; readonly differences: readonly Difference[]; readonly idPrefix: string; readonly start: number };
}

/** A finding as localisation reads it. */
export interface Localisable extends Replayable {
  readonly rule: RuleId;
  readonly at: number;
  readonly differences: readonly Difference[];
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
 * back to the finding's, array positions left out (arrays are compared as sets; their order is the target's).
 */
const described = (d: Difference, from: string, to: string) => JSON.stringify([d.key, d.kind, d.path.replaceAll(/\[\d+\]/g, '[]'), d.model, d.target]).replaceAll(from, to);

/** The differences of the diverging call when the program is replayed against `app` (the calls before it agreeing), undefined when it does not differ there the same way. */
async function replayedDifferences(finding: Localisable, app: FakeApp, salt: string): Promise<{ differences: readonly Difference[]; prefix: string } | undefined> {
  const main = finding.differences[0]!;
  const steps = finding.steps.filter((step) => !step.resolve && step.index <= finding.at);
  let replay;
  try {
    replay = await replaySteps({ ...finding, steps }, inProcessTarget(app, createNamespace({ prefix: 'conf', seed: 1, salt }), finding.apiVersion));
  } catch (cause) {
    if (cause instanceof ControlRefused) return undefined;
    throw cause;
  }
  const at = replay.replayed.get(finding.at);
  if (at === undefined) return undefined;
  if (replay.lockstep.steps.slice(0, at).some((step) => step.differences.length > 0)) return undefined;
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

/** The documented reads that show what a program made: each customer's records, entities and pools, its balance of each feature, each plan. */
function documentedReads(steps: readonly Pick<Step, 'operation' | 'request' | 'resolve'>[]): { operation: OperationName; body: Record<string, unknown> }[] {
  const ids = (field: string, operations?: readonly string[]) => [
    ...new Set(steps.flatMap((step) => (step.resolve || (operations && !operations.includes(step.operation)) ? [] : [(step.request as Record<string, unknown> | null)?.[field]]).filter((id): id is string => typeof id === 'string'))),
  ];
  const customers = ids('customer_id');
  const features = ids('feature_id', ['features.create']);
  const reads = [
    ...customers.flatMap((customer_id) => (['subscriptions.list', 'purchases.list', 'entities.list', 'licenses.list'] as const).map((operation) => ({ operation, body: { customer_id } }))),
    ...customers.flatMap((customer_id) => features.map((feature_id) => ({ operation: 'balances.check' as const, body: { customer_id, feature_id, required_balance: 0 } }))),
    ...ids('plan_id', ['plans.create', 'plans.update']).map((plan_id) => ({ operation: 'plans.get' as const, body: { plan_id } })),
  ];
  return reads.slice(0, MAX_READS);
}

/** Documented reads tried after a program, at most. */
const MAX_READS = 40;

/** A documented read as a step of a program to replay. */
function readStep(read: { operation: OperationName; body: Record<string, unknown> }, index: number): Step {
  return { index, command: 'confirm (documented read)', operation: read.operation, request: read.body, model: { status: 0, body: null }, target: { status: 0, body: null }, differences: [] };
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

/** Listings walked page by page (lockstep.ts): a fault of paging and one of filtering can leave out the same row. */
const LISTINGS: ReadonlySet<string> = new Set(['subscriptions.list', 'purchases.list', 'entities.list']);

/** The diverging listing asked otherwise: in pages of one and of two, without each of its filters in turn, its search in other cases. */
function listingProbes(step: Pick<Step, 'operation' | 'request'>): { operation: OperationName; body: Record<string, unknown> }[] {
  const body = step.request as Record<string, unknown>;
  const operation = step.operation as OperationName;
  const filters = ['start_cursor', 'statuses', 'search', 'processors', 'plans', 'plan_id', 'customer_id'].filter((name) => name in body);
  const search = typeof body['search'] === 'string' ? body['search'] : undefined;
  const cases = search === undefined ? [] : [search.toUpperCase(), search.charAt(0).toUpperCase() + search.slice(1).toLowerCase()].filter((s) => s !== search).map((s) => ({ ...body, search: s }));
  return [{ ...body, limit: 1 }, { ...body, limit: 2 }, ...filters.map((name) => Object.fromEntries(Object.entries(body).filter(([key]) => key !== name))), ...cases].map((probe) => ({ operation, body: probe }));
}

/**
 * Of faults that reproduce a listing's difference equally well, the one that differs from the model
 * on the probes (listingProbes) as the target does: the program and the probes are run once on the
 * target and once on each fault's model. Undefined when the diverging call is no listing, or the
 * probes leave them tied.
 */
async function discriminate(finding: Localisable, tied: readonly Candidate[], target: ExploreTarget): Promise<Candidate | undefined> {
  const diverging = finding.steps.find((step) => step.index === finding.at);
  if (diverging === undefined || !LISTINGS.has(diverging.operation)) return undefined;
  const program = finding.steps.filter((step) => !step.resolve && step.index <= finding.at);
  const first = 1 + Math.max(...finding.steps.map((step) => step.index));
  const probes = listingProbes(diverging).map((probe, i) => readStep(probe, first + i));
  const shown = async (on: ExploreTarget) => {
    const replay = await replaySteps({ ...finding, steps: [...program, ...probes] }, on);
    return probes.map((probe) => new Set((replay.lockstep.steps[replay.replayed.get(probe.index) ?? -1]?.differences ?? []).map((d) => described(d, replay.prefix, finding.idPrefix))));
  };
  try {
    const onTarget = await shown(target);
    const scored = await Promise.all(
      tied.map(async (candidate) => {
        const onFault = await shown(inProcessTarget(faultedApp(candidate.fault), createNamespace({ prefix: 'conf', seed: 1, salt: candidate.fault.rule }), finding.apiVersion));
        return { candidate, misses: onFault.reduce((sum, theirs, i) => sum + [...theirs].filter((d) => !onTarget[i]!.has(d)).length + [...onTarget[i]!].filter((d) => !theirs.has(d)).length, 0) };
      }),
    );
    const least = Math.min(...scored.map((s) => s.misses));
    const best = scored.filter((s) => s.misses === least);
    return best.length < tied.length ? best[0]!.candidate : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The rule of the fault that reproduces the finding's difference, if one does (see the module's
 * comment for the order). With `target`, a MUST rule's fault seen only in a reference-only answer is
 * confirmed through a documented read on it (`confirm`).
 */
export async function localise(finding: Localisable, options: { readonly budgetMs?: number; readonly pace?: () => Promise<void>; readonly target?: ExploreTarget } = {}): Promise<Attribution> {
  const { budgetMs = 30_000, pace, target } = options;
  const deadline = Date.now() + budgetMs;
  const found: Candidate[] = [];
  const steps = finding.steps.filter((step) => step.index <= finding.at);
  // The owners' own rule's fault first (an exact match of it ends the search), then those of the diverging operation.
  const diverging = finding.steps.find((step) => step.index === finding.at)?.operation ?? '';
  const order = (fault: Fault) => (fault.rule === finding.rule ? 0 : operationsTouched(fault)?.has(diverging) ? 1 : 2);
  for (const fault of [...FAULTS.values()].sort((a, b) => order(a) - order(b))) {
    if (Date.now() > deadline) break;
    if (!mayChange(fault, steps)) continue;
    await pace?.();
    const candidate = await reproduces(finding, fault).catch(() => undefined);
    if (candidate !== undefined) found.push(candidate);
    // Nothing ranks above a fault of the owners' own rule reproducing the target's answer exactly.
    if (candidate?.mismatches === 0 && fault.rule === finding.rule) break;
  }
  const main = finding.differences[0]!;
  // A MUST rule only where the difference is in what interface.md shows (a reference-only answer fails SHOULD rules only).
  const documented = shownByDocument(finding.steps.find((step) => step.index === finding.at)?.operation ?? '', main.key);
  const allowed = found.filter((c) => documented || ruleById.get(c.fault.rule)?.level !== 'MUST');
  const rank = (c: Candidate) => [c.mismatches, c.fault.rule === finding.rule ? 0 : 1, c.touches] as const;
  const byRank = (list: readonly Candidate[]) => [...list].sort((a, b) => compareTuples(rank(a), rank(b)));
  const ranked = byRank(allowed);
  // Faults that reproduce a listing's difference equally well (a row missing from a walk): the same listing asked otherwise tells them apart.
  const tied = ranked.filter((c) => c.mismatches === ranked[0]?.mismatches);
  const best = tied.length > 1 && target !== undefined ? ((await discriminate(finding, tied, target)) ?? ranked[0]) : ranked[0];
  const reproducing = found.map((c) => c.fault.rule);
  const first = byRank(found)[0];
  if (first !== undefined && first !== best && target !== undefined) {
    const evidence = await confirm(finding, first.fault, target);
    if (evidence !== undefined) {
      const read = evidence.steps[evidence.at]!.operation;
      return { rule: first.fault.rule, how: 'fault', reproducing, evidence, note: `the fault of the catalogue that breaks ${first.fault.rule} (${first.fault.breaks}) reproduces this difference, and ${read} after the same calls shows it on the target as that fault does` };
    }
  }
  if (best === undefined) {
    return { rule: finding.rule, how: 'owner', reproducing, note: `no fault of the catalogue reproduces it${found.length > 0 ? ' in what interface.md shows' : ''}; ${finding.rule} owns ${main.path || main.key} where it differs (after a write, the rule of the write whose effect it shows)` };
  }
  const others = allowed.filter((c) => c !== best).map((c) => c.fault.rule);
  return {
    rule: best.fault.rule,
    how: 'fault',
    reproducing,
    note: `the fault of the catalogue that breaks ${best.fault.rule} (${best.fault.breaks}) reproduces this difference${best.mismatches === 0 ? ' exactly' : ''}${others.length > 0 ? `; so do ${others.slice(0, 4).join(', ')}${others.length > 4 ? ', …' : ''}` : ''}`,
  };
}

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
