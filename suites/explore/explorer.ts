/**
 * The exploration: random programs over the whole interface (fast-check's `fc.commands`, run with
 * `fc.asyncModelRun`), each run in lockstep on the target and on a fresh reference model, until the
 * budget (runs, time) is spent. A program whose answers differ fails the property; fast-check then
 * shrinks it to a minimal program (within a budget of re-runs, since each costs requests), and the
 * last failing run is the finding: the program as it was sent, both answers, the owning rule. The
 * exploration then goes on with the rules found so far known, so a difference they explain stops a
 * program as blocked by them rather than counting twice.
 */
import fc from 'fast-check';
import { hashSeed } from '../../fixtures/random.ts';
import { callMutates, type OperationDef } from '../../spec/operation.ts';
import { operations, type OperationName } from '../../spec/operations.ts';
import type { Fault } from '../../fake-server/faults/fault.ts';
import { ruleById, type RuleId } from '../../spec/rules/catalogue.ts';
import type { RuleLevel } from '../../spec/rules/rule.ts';
import { TargetFault } from '../framework/checks.ts';
import { TransportError } from '../framework/http.ts';
import { calendarStartArb, type CalendarStart } from './calendar.ts';
import { callMixArb, commandArbitrary, DIMENSIONS, StepCommand, variantHeaders, variantQuestion, VARIANTS, type CallMix, type CommandSpec, type Dimension, type ProgramRun, type Observation, type RunContext, type SendSpec } from './command.ts';
import { isServerFault, type Answer, type Difference } from './compare.ts';
import { ControlRefused, Divergence, KnockOn, KnownStop, Lockstep, NotServed, OBSERVED, signature, type CallSpec, type Step } from './lockstep.ts';
import { WorldState } from './world.ts';
import { balanceCommands } from './parts/balances.ts';
import { billingCommands } from './parts/billing.ts';
import { comboCommands } from './parts/combos.ts';
import { controlCommands } from './parts/control.ts';
import { callerCommands } from './parts/callers.ts';
import { customerCommands } from './parts/customers.ts';
import { deleteCommands } from './parts/deletes.ts';
import { scaleCommands } from './parts/scale.ts';
import { sweepCommand } from './parts/sweep.ts';
import { featureCommands } from './parts/features.ts';
import { licenseCommands } from './parts/licenses.ts';
import { listingCommands } from './parts/listings.ts';
import { planCommands } from './parts/plans.ts';
import { referralCommands } from './parts/referrals.ts';
import { requestCommands } from './parts/requests.ts';
import { mutantCommands, requiredCommands } from './parts/required.ts';
import { entityWorldCommands, focusWorldCommands, worldCommands } from './parts/worlds.ts';
import { localise, modelDiffersFromItself, type Attribution } from './attribution.ts';
import { LEEWAY } from './leeway.ts';
import { ownedOnly } from './owned.ts';
import { idPrefixOf, replaySteps, ReplayStopped } from './replay.ts';
import { reachersOf, Steering, swarmArbitrary } from './steering.ts';
import { clientTakesAsDocumented } from '../../spec/reference/differences.ts';
import { PUBLISHED_CLIENT } from './sides.ts';
import { modelFor, type ExploreTarget, type ProgramTarget } from './targets.ts';

/** Every command of the generators, by part. */
export const COMMANDS: readonly CommandSpec<unknown>[] = [
  ...featureCommands,
  ...planCommands,
  ...customerCommands,
  ...billingCommands,
  ...licenseCommands,
  ...balanceCommands,
  ...listingCommands,
  ...referralCommands,
  ...controlCommands,
  ...worldCommands,
  ...focusWorldCommands,
  ...entityWorldCommands,
  ...requiredCommands,
  ...mutantCommands,
  ...deleteCommands,
  ...scaleCommands,
  ...callerCommands,
  ...requestCommands,
  ...comboCommands,
];

export interface ExploreOptions {
  readonly seed: number;
  /** Programs to run (before shrinking). */
  readonly runs: number;
  /** Calls per program at most, after its prelude. */
  readonly maxSteps: number;
  /** Stop starting programs after this long (ms). */
  readonly timeBudgetMs?: number;
  /** Aborted: no program starts any more (the run's scenarios are done); the one running ends as it would. */
  readonly stop?: AbortSignal;
  /** Aborted: no more re-runs to shrink a finding (what is found is reported as far as it was shrunk). */
  readonly stopShrinking?: AbortSignal;
  /** Shrinking and minimising one finding take at most this long (ms; default: no limit but `shrinkRuns`). */
  readonly shrinkBudgetMs?: number;
  /** Awaited before each call (pace.ts: beside the scenarios, the time they leave). */
  readonly pace?: () => Promise<void>;
  /** Re-runs allowed to shrink one finding. */
  readonly shrinkRuns?: number;
  /** Stop after this many findings. */
  readonly maxFindings?: number;
  /** After fast-check's shrinking, remove the calls the difference does not need (default true). */
  readonly minimize?: boolean;
  /** Parity mode: every difference is kept, programs are never stopped or shrunk. */
  readonly parity?: boolean;
  /** Name each finding's rule by the fault of the catalogue that reproduces it (attribution.ts; default true), within this many ms per finding (default 30 s). */
  readonly localise?: boolean;
  readonly localiseBudgetMs?: number;
  /** The faults localisation may name (default: the whole catalogue); one left out stands for a bug nobody foresaw (`explore --can-fail --unforeseen`). */
  readonly catalogue?: readonly Fault[];
  /** Faults of the model (never: the model is the reference); for the meta-tests of the harness itself. */
  readonly modelFaults?: readonly Fault[];
  readonly log?: (line: string) => void;
}

/** One finding: a minimal program whose answers differ, and the rule that owns the difference. */
export interface Finding {
  readonly rule: RuleId;
  readonly level: RuleLevel;
  /** The other rules the diverging answer differed on, not judged (BLOCKED by `rule`). */
  readonly blocked: readonly RuleId[];
  readonly differences: readonly Difference[];
  /** The program as it ran, shrunk: every call with what each side was sent and answered. */
  readonly steps: readonly Step[];
  /** Index of the diverging step. */
  readonly at: number;
  readonly seed: number;
  /** fast-check's path of the counterexample within its round. */
  readonly path: string | undefined;
  readonly round: number;
  readonly start: { readonly kind: CalendarStart; readonly at: number; readonly exact: boolean; readonly isolated: boolean; readonly environment?: 'live' };
  /** What every ID the program created starts with (a replay swaps it for a fresh one). */
  readonly idPrefix: string;
  /** A convention the whole target breaks, which every difference rests on: the finding is its rule's. */
  readonly convention?: string;
  /** How the rule was named (attribution.ts): by a fault of the catalogue that reproduces the difference, or by the owners. */
  readonly attribution?: Attribution;
  /** The target answered 5xx: ERROR of the operation's success rule, as a scenario charges a server fault (no fault of the catalogue names it). */
  readonly serverFault?: true;
  readonly shrinkRuns: number;
}

/** Findings after which an exploration stops, unless told otherwise. */
export const DEFAULT_MAX_FINDINGS = 10;

export interface ExploreResult {
  readonly seed: number;
  readonly programs: number;
  readonly steps: number;
  readonly findings: readonly Finding[];
  /** Programs stopped by a difference a finding explains. */
  readonly blocked: number;
  /** Programs stopped by a known difference of the 2.3.0 reference, or where the document leaves the answer open (leeway.ts). */
  readonly knownStops: number;
  /** The same, by what stopped them (`<operation>: <difference or leeway id>`). */
  readonly stops: Readonly<Record<string, number>>;
  /** Calls whose answers differed where the document leaves them open (leeway.ts), not compared: `<operation>: <leeway id>` → calls. */
  readonly leeway: Readonly<Record<string, number>>;
  /** Operations the target answered as unknown routes, not explored after that. */
  readonly unserved: readonly OperationName[];
  /** Programs whose setup the control plane refused. */
  readonly setupRefused: number;
  /** The target failed (5xx, no answer): the exploration stopped. */
  readonly error?: string;
  /** Programs that reached each dimension. */
  readonly coverage: Readonly<Record<Dimension, number>>;
  /** The dimensions some command reaches on purpose on this target (steering.ts); the others only by chance, if at all. */
  readonly steerable: readonly Dimension[];
  /** Calls made, by command. */
  readonly commands: Readonly<Record<string, number>>;
  /** Calls compared, by operation: how many the model accepted and refused. */
  readonly answers: Readonly<Record<string, { accepted: number; refused: number }>>;
  /** Parity mode: every difference, with the step it came from and the program it showed in (to replay it). */
  readonly differences: readonly { readonly difference: Difference; readonly step: Step; readonly program: number; readonly afterOther: boolean; readonly replayable: Omit<Finding, 'rule' | 'level' | 'blocked' | 'differences' | 'at' | 'path' | 'round' | 'shrinkRuns'> }[];
  readonly durationMs: number;
  /** Where the time went: running (and shrinking) programs, minimising findings, naming their rules. */
  readonly timings: { readonly exploringMs: number; readonly minimizingMs: number; readonly localisingMs: number };
  readonly interrupted: boolean;
}

/** The sweep every program ends with (parts/sweep.ts). */
const SWEEP = new StepCommand(sweepCommand, null);

/** The commands a target allows: no control plane, no clock; read-only, reads only; a shared tenant, no auto-enable. */
export function commandsFor(target: Pick<ExploreTarget, 'abilities'>): CommandSpec<unknown>[] {
  const { abilities } = target;
  return COMMANDS.filter((c) => (abilities.controlPlane || !c.control) && (!abilities.readOnly || c.reads));
}

interface Program {
  readonly start: CalendarStart;
  /** The environment the program runs in, where it has a tenant of its own (ProgramTarget). */
  readonly environment: 'live' | undefined;
  /** How the calls its commands leave plain are sent (an allowed envelope variant, the published client). */
  readonly mix: CallMix;
  readonly prelude: readonly StepCommand<unknown>[];
  /** Commands reaching the dimensions the run has reached least so far (steering.ts), after the prelude. */
  readonly goals: readonly StepCommand<unknown>[];
  readonly steps: Iterable<fc.AsyncCommand<WorldState, ProgramRun>>;
}

/**
 * How a program's world is built before the random steps: some features, plans over them, customers,
 * entities, and attachments, in that order (each list shrinks on its own), then now and then one of
 * the compound worlds (parts/worlds.ts), always the one its focus needs, so that most steps find
 * something to act on.
 */
const PRELUDE: readonly { readonly command: string; readonly min: number; readonly max: number }[] = [
  { command: 'features.create', min: 1, max: 4 },
  { command: 'plans.create', min: 1, max: 4 },
  { command: 'customers.get_or_create', min: 1, max: 2 },
  { command: 'entities.create', min: 0, max: 2 },
  { command: 'billing.attach', min: 1, max: 4 },
  { command: 'world.license-pool', min: 0, max: 1 },
  { command: 'world.credit-system', min: 0, max: 1 },
  { command: 'world.stacked-grants', min: 0, max: 1 },
  { command: 'world.plan-versions', min: 0, max: 0 },
  { command: 'world.paid-subscriptions', min: 0, max: 0 },
  { command: 'world.referral-program', min: 0, max: 0 },
  { command: 'world.purchases', min: 0, max: 0 },
  { command: 'world.entities', min: 0, max: 0 },
];

/**
 * What a program dwells on: the commands of its focus parts weigh FOCUS_WEIGHT times more, and its
 * prelude always builds the world it needs, so that a program goes deep into one part (a pool's
 * seats through attaches and releases, a balance through checks, tracks, locks and clock moves)
 * while every other command can still come up.
 */
export const FOCUSES = {
  mixed: { weight: 2, parts: [], world: undefined },
  licenses: { weight: 4, parts: ['licenses'], world: 'world.license-pool' },
  balances: { weight: 3, parts: ['balances', 'control'], world: 'world.stacked-grants' },
  credits: { weight: 1, parts: ['balances', 'features'], world: 'world.credit-system' },
  records: { weight: 2, parts: ['listings', 'billing', 'control'], world: 'world.purchases' },
  entities: { weight: 2, parts: ['entities', 'billing', 'control'], world: 'world.entities' },
  plans: { weight: 2, parts: ['plans', 'billing'], world: 'world.plan-versions' },
  preview: { weight: 2, parts: ['preview', 'billing', 'control'], world: 'world.paid-subscriptions' },
  referrals: { weight: 2, parts: ['referrals'], world: 'world.referral-program' },
  refusals: { weight: 2, parts: ['errors'], world: undefined },
} as const satisfies Record<string, { weight: number; parts: readonly string[]; world: string | undefined }>;

export const FOCUS_WEIGHT = 10;

/** Programs per fast-check run (each round draws its own, from the seed and the round). */
const ROUND_RUNS = 25;

/** The stop counted for a difference the model shows against a healthy model of its own (attribution.ts `modelDiffersFromItself`). */
const ORACLE_OWN = "the model's own difference (not charged)";

/**
 * The environment a program runs in (callers that differ, as a dimension of every operation): one
 * program in five in its organisation's live environment, where it has a tenant of its own. The
 * document says nothing that differs between them, so every call is compared as in the sandbox.
 */
const environmentArb: fc.Arbitrary<'live' | undefined> = fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: fc.constant<'live'>('live'), weight: 1 });

function programArbitrary(commands: readonly CommandSpec<unknown>[], maxSteps: number, steering: Steering): fc.Arbitrary<Program> {
  const prelude = (world: string | undefined) =>
    fc
      .tuple(
        ...PRELUDE.flatMap(({ command, min, max }) => {
          const spec = commands.find((c) => c.name === command && c.builds);
          return spec ? [fc.array(commandArbitrary([spec]), { minLength: command === world ? 1 : min, maxLength: command === world ? Math.max(1, max) : max })] : [];
        }),
      )
      .map((lists) => lists.flat());
  const focused = Object.values(FOCUSES).map(({ weight, parts, world }) => {
    // The refusals focus weighs up every command that sends what must be refused, whatever its part.
    const focusing = (c: CommandSpec<unknown>) => (parts as readonly string[]).includes(c.part) || ((parts as readonly string[]).includes('errors') && c.refusal === true);
    // Commands of weight 0 come only as goals (steering.ts): too costly to be a random step.
    const weighted = commands.filter((c) => c.weight > 0).map((c) => (focusing(c) ? { ...c, weight: c.weight * FOCUS_WEIGHT } : c));
    const arbitrary = fc.record({
      start: calendarStartArb,
      environment: environmentArb,
      mix: callMixArb,
      prelude: prelude(world),
      goals: steering.goalsArbitrary(),
      steps: swarmArbitrary(weighted, focusing).chain((swarm) => fc.commands([commandArbitrary(swarm)], { maxCommands: maxSteps, size: 'max' })),
    });
    return { weight, arbitrary };
  });
  return fc.oneof(...focused);
}

/** What the exploration has learnt of the target so far, shared by its programs. */
interface Learnt {
  /** Rules (and difference signatures) already found: a difference they explain is a knock-on. */
  readonly found: ReadonlySet<string>;
  /** Operations the target answered as unknown routes: not called again. */
  readonly unserved: ReadonlySet<OperationName>;
  /** Envelope variants the target refuses where the document leaves them open (leeway.ts): sent plain instead. */
  readonly refusedVariants: Set<string>;
}

/** Envelope variants whose refusal the document leaves open (leeway.ts): a write is never sent in one, or the two sides would go on from different states. */
const OPEN_VARIANTS: ReadonlySet<string> = new Set(LEEWAY.flatMap((leeway) => (leeway.variant ? [leeway.variant] : [])));

/**
 * The calls fast-check's shrinking may re-run, per re-run of its budget: a program of a few
 * hundred calls (a scale command) shrinks in fewer re-runs, and the minimisation, which removes a
 * whole command in one re-run, takes it from there (a 223-call program: 30 re-runs took 10 s and
 * left 208 calls; the minimisation took it to 1 call in 3.5 s).
 */
export const SHRINK_CALLS_PER_RUN = 100;

/** Calls of one command in flight at once when it builds many of a thing (RunContext `sendAll`). */
const CONCURRENCY = 16;

/** The answer of a call the exploration did not send (the target does not serve it, or it is one the run's capabilities exclude). */
const NOT_SENT = { status: 0, body: undefined } as const;

class Run implements ProgramRun {
  readonly world: WorldState;
  readonly lockstep: Lockstep;
  readonly reached = new Set<Dimension>();
  readonly calls = new Map<string, number>();
  readonly idPrefix: string;
  readonly #target: ExploreTarget;
  readonly #program: ProgramTarget;
  readonly #model: ReturnType<typeof modelFor>;
  readonly #ns: ReturnType<ExploreTarget['ns']['scope']>;
  readonly #learnt: Learnt;
  readonly #pace: (() => Promise<void>) | undefined;
  /** Plans that had a price in any version the model showed (an older version may be attached). */
  readonly #priced = new Set<string>();
  readonly #mix: CallMix;
  /** The plain calls of the program so far, in the order they were started: the mix picks its variant's and its client's by it. */
  #plainCalls = 0;

  constructor(target: ExploreTarget, program: ProgramTarget, model: ReturnType<typeof modelFor>, start: CalendarStart, mix: CallMix, scope: string, learnt: Learnt, parity: boolean, pace?: () => Promise<void>) {
    this.#learnt = learnt;
    this.#mix = mix;
    this.#pace = pace;
    this.#target = target;
    this.#program = program;
    this.#model = model;
    this.#ns = target.ns.scope(scope);
    this.idPrefix = idPrefixOf(this.#ns);
    this.world = new WorldState(program.start);
    this.world.groups = [this.#ns.id('grp'), this.#ns.id('grp')];
    this.world.eventName = this.#ns.id('evt');
    if (program.isolated && start !== 'mid-june') this.reached.add('calendar-edge-start');
    if (program.environment === 'live') this.reached.add('live-program');
    const secrets = target.secrets();
    this.lockstep = new Lockstep({
      model: model.side,
      target: program.side,
      otherKeys: model.otherKey && program.otherKey ? { model: model.otherKey, target: program.otherKey } : undefined,
      world: this.world,
      timeToleranceMs: program.exact ? 0 : 5 * 60_000,
      found: learnt.found,
      collect: parity,
      redactHeaders: (headers) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v === null ? null : secrets.reduce((text, secret) => text.replaceAll(secret, '$KEY'), v)])),
      // In a shared tenant, only what this program made: not the scenarios', nor other programs' (their auto-enable plans).
      ...(program.isolated ? {} : { ownedOnly: (operation, body) => ownedOnly(operation, body, (id) => id.startsWith(`${this.idPrefix}_`)) }),
    });
  }

  context(command: string): RunContext {
    this.calls.set(command.split('(')[0]!, (this.calls.get(command.split('(')[0]!) ?? 0) + 1);
    const lockstep = this.lockstep;
    const target = this.#target;
    return {
      world: this.world,
      lockstep,
      ns: this.#ns,
      can: target.abilities,
      command,
      reached: (dimension) => this.reached.add(dimension),
      send: (spec) => this.#send(command, spec),
      sendAll: (specs) => this.#sendAll(command, specs),
      // Logged as observations: reads of what earlier writes left are no writers themselves.
      observeAll: async (specs) => void (await this.#sendAll(`${command}${OBSERVED}`, specs)),
      pair: async (first, second) => {
        const [a, b] = [this.#prepare(command, first), this.#prepare(command, second)];
        if (a === undefined || b === undefined) return;
        await this.#pace?.();
        await lockstep.pair(a, b);
        this.reached.add('pipelined-pair');
      },
      walkAround: async (listing, write, removal) => {
        const [read, change] = [this.#prepare(command, listing), this.#prepare(command, write)];
        if (read === undefined || change === undefined) return;
        await this.#pace?.();
        await lockstep.walkAround(read, change, removal);
        this.reached.add('delete-mid-walk');
        if (lockstep.steps.at(-1)?.model.status === 200) this.reached.add('paged-walk');
      },
      modelRead: (operation, body) => lockstep.resolve(command, 'model', operation, body),
    };
  }

  /** Independent calls a few at a time: many of a thing is built in a fraction of the time one call after the other takes. */
  async #sendAll(command: string, specs: readonly SendSpec[]): Promise<{ model: Answer; target: Answer }[]> {
    const results: { model: Answer; target: Answer }[] = [];
    const failures: unknown[] = [];
    for (let i = 0; i < specs.length; i += CONCURRENCY) {
      const settled = await Promise.allSettled(specs.slice(i, i + CONCURRENCY).map((spec) => this.#send(command, spec)));
      for (const outcome of settled) outcome.status === 'fulfilled' ? results.push(outcome.value) : failures.push(outcome.reason);
      if (failures.length > 0) throw failures[0];
    }
    return results;
  }

  /** A call as the lockstep sends it: its envelope variant's headers on each side (a variant the target refuses where the document leaves it open goes plain); undefined when it may not be sent. */
  #prepare(command: string, { variant: chosen, observe: _observe, ...spec }: SendSpec): CallSpec | undefined {
    if (!this.#sendable(spec.operation, spec.body)) return undefined;
    const model = this.#model;
    const program = this.#program;
    const variant = chosen === undefined || chosen === 'plain' || spec.caller !== undefined || this.#learnt.refusedVariants.has(chosen) ? undefined : chosen;
    const definition = variant === undefined ? undefined : VARIANTS[variant];
    const otherTenant = variant === 'other-tenant';
    // The other tenant's key is for reads only; where there is none, the call goes plain.
    const reads = !callMutates(operations[spec.operation] as Pick<OperationDef, 'mutates'>, spec.body);
    const usable = definition !== undefined && (!otherTenant || (reads && program.otherKey !== undefined && model.otherKey !== undefined));
    const headers = usable && variant ? { model: variantHeaders(variant, model.key, model.otherKey, this.#target.apiVersion)!, target: variantHeaders(variant, program.key, program.otherKey, this.#target.apiVersion)! } : undefined;
    // An observation (the sweep's, a write's read-back) reaches nothing of its own: the dimensions steer the commands that write.
    const reaching = !command.endsWith(OBSERVED);
    if (reaching && headers) this.reached.add(otherTenant ? 'other-tenant-read' : 'envelope-variant');
    if (reaching && (variant === 'media-type-case' || variant === 'scheme-space')) this.reached.add(variant);
    if (reaching && spec.caller?.agent !== undefined) this.reached.add('published-client');
    if (reaching && spec.caller?.environment !== undefined) this.reached.add('both-environments');
    return {
      ...spec,
      command,
      ...(headers && variant && definition ? { headers, variant: variantQuestion(variant) } : {}),
    };
  }

  /** A plain call as the program's mix sends it (command.ts CallMix): with the published client's User-Agent every `clientEvery`-th, else in the mix's variant every `variantEvery`-th. */
  #mixed(spec: SendSpec): SendSpec {
    if (spec.caller !== undefined || (spec.variant !== undefined && spec.variant !== 'plain')) return spec;
    const { variantEvery, variant, clientEvery } = this.#mix;
    const at = ++this.#plainCalls;
    // One call before the variant's turn, so that a mix of both sends some calls in each.
    if (clientEvery > 0 && (at + 1) % clientEvery === 0 && clientTakesAsDocumented(spec.operation, spec.body)) return { ...spec, caller: PUBLISHED_CLIENT };
    const writes = callMutates(operations[spec.operation] as Pick<OperationDef, 'mutates'>, spec.body);
    return variantEvery > 0 && at % variantEvery === 0 && !(writes && OPEN_VARIANTS.has(variant)) ? { ...spec, variant } : spec;
  }

  async #send(command: string, plain: SendSpec): Promise<{ model: Answer; target: Answer }> {
    const spec = this.#mixed(plain);
    const call = this.#prepare(command, spec);
    if (call === undefined) return { model: NOT_SENT, target: NOT_SENT };
    await this.#pace?.();
    const lockstep = this.lockstep;
    const result = await lockstep.call(call);
    const leewayMet = LEEWAY.find((l) => l.id === lockstep.steps.at(-1)?.leeway);
    if (leewayMet?.variant !== undefined) this.#learnt.refusedVariants.add(leewayMet.variant);
    if ((result.model as { pages?: number }).pages! > 1 || (result.target as { pages?: number }).pages! > 1) this.reached.add('paged-walk');
    // What the program's own key made (in any envelope the conventions allow), not the other environment's.
    if (result.target.status === 200 && call.variant?.name !== 'other-tenant' && spec.caller?.environment === undefined) this.#target.created?.(spec.operation, spec.body);
    for (const plan of this.world.plans) if (plan.paid) this.#priced.add(plan.id);
    // Observed after an accepted write, and after a refused one too: what a refusal leaves behind.
    const { observe } = spec;
    if (observe && (result.model.status === 200) === (result.target.status === 200)) {
      for (const read of (Array.isArray(observe) ? observe : [observe]) as readonly Observation[]) {
        if (this.#sendable(read.operation, read.body)) await lockstep.call({ ...read, command: `${command}${OBSERVED}`, ...(spec.caller ? { caller: spec.caller } : {}) });
      }
    }
    return result;
  }

  /**
   * Whether the call may be sent: not to an operation the target does not serve, and no paid attach
   * where the run's probe found that one answers with a checkout (the document leaves that open).
   */
  #sendable(operation: OperationName, body: Readonly<Record<string, unknown>>): boolean {
    if (this.#learnt.unserved.has(operation)) return false;
    if (operation === 'billing.attach' && !this.#target.abilities.paidAttach) {
      const planId = body['plan_id'] as string;
      if (this.#priced.has(planId) || this.world.plans.some((p) => p.id === planId && p.paid)) return false;
    }
    return true;
  }

  async close(): Promise<void> {
    await this.#program.close();
  }
}

/** Runs an exploration against a target. Never throws for a difference: findings are in the result. */
export async function explore(target: ExploreTarget, options: ExploreOptions): Promise<ExploreResult> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const commands = commandsFor(target);
  const coverage = Object.fromEntries(Object.keys(DIMENSIONS).map((d) => [d, 0])) as Record<Dimension, number>;
  let programs = 0;
  const steering = new Steering(reachersOf(commands, target.abilities), coverage, () => programs);
  const arbitrary = programArbitrary(commands, options.maxSteps, steering);
  const deadline = options.timeBudgetMs === undefined ? Number.POSITIVE_INFINITY : started + options.timeBudgetMs;
  const shrinkBudget = options.shrinkRuns ?? 200;
  const maxFindings = options.maxFindings ?? DEFAULT_MAX_FINDINGS;
  const findings: Finding[] = [];
  const found = new Set<string>();
  const unserved = new Set<OperationName>();
  const refusedVariants = new Set<string>();
  const leeway: Record<string, number> = {};
  const stopped = () => Date.now() > deadline || options.stop?.aborted === true;
  let shrinkStarted = Number.POSITIVE_INFINITY;
  const shrinkStopped = () => options.stopShrinking?.aborted === true || Date.now() - shrinkStarted > (options.shrinkBudgetMs ?? Number.POSITIVE_INFINITY);
  const calls: Record<string, number> = {};
  const answers: Record<string, { accepted: number; refused: number }> = {};
  const differences: ExploreResult['differences'][number][] = [];
  let steps = 0;
  let blocked = 0;
  const stops: Record<string, number> = {};
  const timings = { minimizingMs: 0, localisingMs: 0 };
  let setupRefused = 0;
  let error: string | undefined;
  let interrupted = false;
  let scopes = 0;

  // Rounds of at most ROUND_RUNS programs: once stopped, fast-check does not draw hundreds of programs only to skip them.
  for (let round = 0; programs < options.runs && findings.length < maxFindings && error === undefined && !interrupted; round++) {
    const seed = round === 0 ? options.seed : hashSeed(options.seed, `round-${round}`);
    let shrinking = false;
    let shrinkRuns = 0;
    let shrinkCalls = 0;
    let failure: { run: Run; divergence: Divergence; start: CalendarStart; program: ProgramTarget; scope: string } | undefined;
    const property = fc.asyncProperty(arbitrary, async (program) => {
      const shrinkRun = shrinking;
      if (error !== undefined) return true;
      if (shrinking && (++shrinkRuns > shrinkBudget || shrinkCalls > shrinkBudget * SHRINK_CALLS_PER_RUN || shrinkStopped())) return true;
      if (!shrinking && stopped()) {
        interrupted = true;
        return true;
      }
      const scope = `explore-${options.seed}-${++scopes}`;
      let opened: ProgramTarget;
      try {
        opened = await target.open(program.start, program.environment);
      } catch (cause) {
        error = `the target could not start a program: ${(cause as Error).message}`;
        return true;
      }
      const model = modelFor(opened, target.apiVersion, options.modelFaults);
      const run = new Run(target, opened, model, program.start, program.mix, scope, { found, unserved, refusedVariants }, options.parity === true, options.pace);
      try {
        await fc.asyncModelRun(() => ({ model: run.world, real: run }), [...program.prelude, ...program.goals, ...program.steps, SWEEP]);
        return true;
      } catch (cause) {
        if (cause instanceof Divergence) {
          // The last failing run is the smallest program so far: fast-check shrinks from it, or stops there.
          failure = { run, divergence: cause, start: program.start, program: opened, scope };
          if (!shrinking) shrinkStarted = Date.now();
          shrinking = true;
          return false;
        }
        if (cause instanceof KnockOn) blocked += shrinkRun ? 0 : 1;
        else if (cause instanceof KnownStop) {
          if (!shrinkRun) stops[cause.id] = (stops[cause.id] ?? 0) + 1;
        }
        else if (cause instanceof NotServed) {
          unserved.add(cause.operation);
          if (!shrinkRun) stops[`${cause.operation}: not served`] = (stops[`${cause.operation}: not served`] ?? 0) + 1;
          log(`explore: ${cause.message}; it is not explored further (the scenarios SKIP its rules)`);
        }
        else if (cause instanceof ControlRefused) setupRefused += shrinkRun ? 0 : 1;
        else if (cause instanceof TargetFault || cause instanceof TransportError) error = cause.message;
        else throw cause;
        return true;
      } finally {
        if (shrinkRun) shrinkCalls += run.lockstep.steps.length;
        if (!shrinkRun) {
          programs++;
          steps += run.lockstep.steps.length;
          for (const dimension of run.reached) coverage[dimension]++;
          for (const [name, count] of run.calls) calls[name] = (calls[name] ?? 0) + count;
          for (const step of run.lockstep.steps) {
            if (step.resolve) continue;
            if (step.leeway !== undefined) {
              leeway[`${step.operation}: ${step.leeway}`] = (leeway[`${step.operation}: ${step.leeway}`] ?? 0) + 1;
              const variant = LEEWAY.find((l) => l.id === step.leeway)?.variant;
              if (variant !== undefined) refusedVariants.add(variant);
            }
            const tally = (answers[step.operation] ??= { accepted: 0, refused: 0 });
            if (step.model.status === 200) tally.accepted++;
            else tally.refused++;
          }
          if (options.parity) collectDifferences(run, programs, seed, opened, program.start, differences);
        }
        await run.close().catch(() => undefined);
      }
    });
    const details = await fc.check(property, { seed, numRuns: Math.min(ROUND_RUNS, options.runs - programs), endOnFailure: false });
    if (failure === undefined) continue;
    const shrinkEnded = Date.now();
    const shrunk = toFinding(failure, seed, round, shrinkRuns, details.counterexamplePath ?? undefined);
    const minimal = error === undefined && options.minimize !== false && !shrinkStopped() ? await minimize(shrunk, target, Math.max(0, shrinkBudget - shrinkRuns) + shrunk.steps.length, shrinkStopped) : shrunk;
    const minimized = Date.now();
    timings.minimizingMs += minimized - shrinkEnded;
    // The model differing from a healthy model of its own there: the oracle's difference, never the target's; explored past.
    if (error === undefined && (await modelDiffersFromItself({ ...minimal, apiVersion: target.apiVersion }))) {
      stops[ORACLE_OWN] = (stops[ORACLE_OWN] ?? 0) + 1;
      for (const d of failure.divergence.differences) found.add(signature(d));
      shrinkStarted = Number.POSITIVE_INFINITY;
      log(`explore: a difference at ${minimal.differences[0]?.path || minimal.differences[0]?.key} is the model's own (a healthy model replaying the program differs the same way): not charged`);
      if (interrupted) break;
      continue;
    }
    const named = options.localise === false || error !== undefined || minimal.serverFault ? minimal : await localised(minimal, target, options);
    const finding = await onConvention(named, target);
    timings.localisingMs += Date.now() - minimized;
    findings.push(finding);
    shrinkStarted = Number.POSITIVE_INFINITY;
    for (const d of failure.divergence.differences) found.add(d.rule).add(signature(d));
    found.add(finding.rule);
    log(`explore: ${finding.rule} (${finding.level}) at ${finding.differences[0]?.path || finding.differences[0]?.key}; program shrunk to ${finding.steps.filter((s) => !s.resolve).length} calls in ${shrinkRuns} re-runs`);
    if (interrupted) break;
  }
  return { seed: options.seed, programs, steps, findings, blocked, knownStops: Object.values(stops).reduce((a, b) => a + b, 0), stops, leeway, unserved: [...unserved], setupRefused, ...(error ? { error } : {}), coverage, steerable: steering.steerable, commands: calls, answers, differences, durationMs: Date.now() - started, timings: { exploringMs: Date.now() - started - timings.minimizingMs - timings.localisingMs, ...timings }, interrupted };
}

/**
 * fast-check shrinks a program by the structure it was generated from; what is left often still
 * holds calls the difference does not need (a world built for another command, hundreds of customers
 * a scale command made). This pass removes logged calls and keeps a removal when the program run
 * again still differs first at the same call, the same way (same rule, same field): first each
 * command's calls together, then runs of 16 calls, then each call alone, every pass from the last
 * call before the diverging one back. Removing a 300-call command one call at a time took 300 re-runs
 * (24 s in-process, far longer over a network); together, one.
 */
export async function minimize(finding: Finding, target: ExploreTarget, budget: number, stopped: () => boolean): Promise<Finding> {
  const goal = finding.differences[0]!;
  const same = (d: Difference) => d.rule === goal.rule && d.key === goal.key;
  let current = finding;
  let steps = finding.steps.filter((step) => !step.resolve && step.index <= finding.at);
  let runs = 0;
  /** Runs the program without the calls `drop` picks (never the diverging one); true when it still differs there, the same way. */
  const without = async (drop: (step: Step, position: number) => boolean): Promise<boolean> => {
    const candidate = steps.filter((step, j) => j === steps.length - 1 || !drop(step, j));
    if (candidate.length === steps.length) return false;
    runs++;
    let replay;
    try {
      replay = await replaySteps({ steps: candidate, idPrefix: current.idPrefix, start: current.start, apiVersion: target.apiVersion }, target, stopped);
    } catch (cause) {
      // Refused, stopped, or ended at a known difference of the reference before the diverging call: not the same finding.
      if (cause instanceof ControlRefused || cause instanceof ReplayStopped || cause instanceof KnownStop) return false;
      throw cause;
    }
    const at = replay.replayed.get(candidate.at(-1)!.index);
    const differences = at === undefined ? [] : replay.lockstep.steps[at]!.differences;
    // Without the calls the program must still differ first there: a removal that makes an earlier call differ is another finding.
    if (!differences.some(same) || replay.lockstep.steps.slice(0, at).some((step) => step.differences.length > 0)) return false;
    const main = differences.find(same)!;
    current = {
      ...current,
      differences: [main, ...differences.filter((d) => d !== main)],
      blocked: [...new Set(differences.map((d) => d.rule).filter((r) => r !== main.rule))],
      steps: replay.lockstep.steps,
      at: at!,
      idPrefix: replay.prefix,
      start: { ...current.start, at: replay.start },
    };
    steps = replay.lockstep.steps.filter((step) => !step.resolve);
    return true;
  };
  const going = () => runs < budget && !stopped();
  // Each command's calls (a run of calls logged under one command) together, then runs of 16 (in a program long enough), then one by one.
  const passes = [commandRuns, ...(steps.length > 2 * MINIMIZE_CHUNK ? [(list: readonly Step[]) => fixedRuns(list, MINIMIZE_CHUNK)] : []), (list: readonly Step[]) => fixedRuns(list, 1)];
  for (const chunked of passes) {
    for (let k = chunked(steps.slice(0, -1)).length - 1; k >= 0 && going(); k--) {
      const chunk = new Set(chunked(steps.slice(0, -1))[k]);
      if (chunk.size > 0) await without((_, j) => chunk.has(j));
    }
  }
  return { ...current, shrinkRuns: finding.shrinkRuns + runs };
}

/** Calls removed together in minimize's middle pass. */
const MINIMIZE_CHUNK = 16;

/** The positions of the calls, in runs logged under one command. */
function commandRuns(steps: readonly Step[]): number[][] {
  const runs: number[][] = [];
  steps.forEach((step, j) => {
    if (j > 0 && steps[j - 1]!.command === step.command) runs.at(-1)!.push(j);
    else runs.push([j]);
  });
  return runs;
}

/** The positions of the calls, in runs of `size`. */
function fixedRuns(steps: readonly Step[], size: number): number[][] {
  const runs: number[][] = [];
  for (let j = 0; j < steps.length; j += size) runs.push(Array.from({ length: Math.min(size, steps.length - j) }, (_, i) => j + i));
  return runs;
}

/** The finding under the rule its localisation names (attribution.ts); the owners' rule, when another, BLOCKED by it. */
async function localised(finding: Finding, target: ExploreTarget, options: Pick<ExploreOptions, 'localiseBudgetMs' | 'pace' | 'catalogue'>): Promise<Finding> {
  const { localiseBudgetMs: budgetMs, pace, catalogue } = options;
  const attribution = await localise({ ...finding, apiVersion: target.apiVersion }, { ...(budgetMs !== undefined ? { budgetMs } : {}), ...(pace ? { pace } : {}), ...(catalogue ? { catalogue } : {}), target });
  const { evidence } = attribution;
  // Confirmed through a documented read: that run is the finding's evidence.
  const shown = evidence === undefined ? finding : { ...finding, steps: evidence.steps, at: evidence.at, differences: evidence.differences, idPrefix: evidence.idPrefix, start: { ...finding.start, at: evidence.start } };
  if (attribution.rule === finding.rule) return { ...shown, attribution };
  const blocked = [...new Set([finding.rule, ...finding.blocked, ...shown.differences.map((d) => d.rule)])].filter((r) => r !== attribution.rule);
  return { ...shown, rule: attribution.rule, level: ruleById.get(attribution.rule)?.level ?? 'SHOULD', blocked, attribution };
}

/** A finding on a target that breaks a convention every call rests on is that convention's (checks.ts, as for scenarios). */
async function onConvention(finding: Finding, target: ExploreTarget): Promise<Finding> {
  const breach = await target.conventions();
  if (breach === undefined || breach.rules.includes(finding.rule)) return finding;
  const rule = breach.rules[0] as RuleId;
  return { ...finding, rule, level: ruleById.get(rule)?.level ?? 'MUST', blocked: [...new Set([finding.rule, ...finding.blocked])], convention: breach.message };
}

/** The rule of a diverging answer that FAILs: a MUST before a SHOULD, a status before a field, else the first. */
function primary(differences: readonly Difference[]): Difference {
  const rank = (d: Difference) => (ruleById.get(d.rule)?.level === 'MUST' ? 0 : 2) + (d.kind === 'status' ? 0 : 1);
  return [...differences].sort((a, b) => rank(a) - rank(b))[0]!;
}

function toFinding(failure: { run: Run; divergence: Divergence; start: CalendarStart; program: ProgramTarget; scope: string }, seed: number, round: number, shrinkRuns: number, path: string | undefined): Finding {
  const { divergence } = failure;
  const main = primary(divergence.differences);
  return {
    rule: main.rule,
    level: ruleById.get(main.rule)?.level ?? 'SHOULD',
    blocked: [...new Set(divergence.differences.map((d) => d.rule).filter((r) => r !== main.rule))],
    differences: [main, ...divergence.differences.filter((d) => d !== main)],
    steps: failure.run.lockstep.steps,
    at: divergence.step.index,
    seed,
    path,
    round,
    start: { kind: failure.start, at: failure.program.start, exact: failure.program.exact, isolated: failure.program.isolated, ...(failure.program.environment ? { environment: failure.program.environment } : {}) },
    idPrefix: failure.run.idPrefix,
    shrinkRuns,
    ...(isServerFault(divergence.step.target) ? { serverFault: true as const } : {}),
  };
}

function collectDifferences(run: Run, program: number, seed: number, opened: ProgramTarget, start: CalendarStart, out: ExploreResult['differences'][number][]): void {
  let firstClass: string | undefined;
  const replayable = { steps: run.lockstep.steps, seed, idPrefix: run.idPrefix, start: { kind: start, at: opened.start, exact: opened.exact, isolated: opened.isolated, ...(opened.environment ? { environment: opened.environment } : {}) } };
  for (const step of run.lockstep.steps) {
    for (const difference of step.differences) {
      const klass = `${difference.rule} ${difference.key}`;
      firstClass ??= klass;
      out.push({ difference, step, program, afterOther: klass !== firstClass, replayable });
    }
  }
}
