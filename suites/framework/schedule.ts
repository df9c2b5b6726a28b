/**
 * Scenarios side by side. Against a remote target a run's wall time is its requests times the round
 * trip, and a scenario's calls depend on one another, so the run goes faster only by running
 * scenarios at the same time (docs/performance.md: the latency bench).
 *
 * - A scenario runs ALONE when it declares (`needs` or `uses`), and the target has, a capability
 *   whose use changes what every other scenario sees (TENANT_WIDE): the control plane (clock moves,
 *   forced states) or the tenant to itself (an auto-enable plan reaches every customer created
 *   meanwhile). It starts when nothing else runs, and nothing starts while it runs. Derived from the
 *   declarations alone: a scenario cannot reach the control plane without declaring it
 *   (scenario.ts), and one that only reads the clock (`uses`) may still move it where it can
 *   (preview.request-validation does), so `uses` counts as much as `needs`.
 * - Unless the target makes organisations (`own-tenant`: the fake's `tenants.create`): then such a
 *   scenario runs in a fresh one of its own (OWN-TENANT), with its own data and clock, deleted when
 *   it ends, SHARED with the others. Not one that declares a fixture the profile supplies: the
 *   fixtures are records of the run's tenant, so it runs alone there (`placement`).
 * - Every other scenario runs SHARED, at most `concurrency` at a time.
 * - Order (`inRunOrder`): the scenarios that run alone first, one after another, then the others, each
 *   group in the order given. One drain of the pool instead of one per scenario that runs alone; the
 *   others then all see the clock where the last clock move left it. With a concurrency of 1 there is
 *   nothing to drain, and scenarios run in the order given, as they always did.
 *
 * Verdicts do not depend on it: every scenario works in its own namespace scope, with its own
 * seeded generators, evidence log and ledger records, and reads nothing of another's
 * (suites/meta/concurrency.test.ts runs the suite sequentially and concurrently and compares every
 * verdict).
 *
 * In a vitest run, scenarios are registered while the test files are collected and run when the
 * first of their tests starts (`RunPlan`): the conformance project runs every file in one worker
 * and one module graph (`isolate: false`, conformance-project.ts), and when its first file registers,
 * the files after it are discovered (discovery.ts), so one plan holds every file's scenarios from
 * the start; tests then report in their own order as their scenarios finish. How many entry files
 * there are does not matter.
 */
import type { Capability, CapabilitySet, Need } from './capabilities.ts';

/** Capabilities whose use changes what every other scenario of the run sees. */
export const TENANT_WIDE: ReadonlySet<Capability> = new Set<Capability>(['control-plane', 'exclusive-tenant']);

/** Where a scenario runs: alone in the run's tenant, in a tenant of its own beside the others, or beside them in the run's. */
export type Placement = 'alone' | 'own-tenant' | 'shared';

type Declaring = { readonly needs: readonly Need[]; readonly uses: readonly Capability[] };

/** Where a scenario declaring these needs and uses runs, on a target with these capabilities (above). */
export function placement(scenario: Declaring, capabilities: Pick<CapabilitySet, 'has'>): Placement {
  const declared = [...scenario.needs.flatMap((need) => (typeof need === 'string' ? [need] : need)), ...scenario.uses];
  if (!declared.some((capability) => TENANT_WIDE.has(capability) && capabilities.has(capability))) return 'shared';
  const usesFixture = declared.some((capability) => capability.startsWith('fixture:') && capabilities.has(capability));
  return capabilities.has('own-tenant') && !usesFixture ? 'own-tenant' : 'alone';
}

/** Whether a scenario declaring these needs and uses must have the run's tenant to itself, on a target with these capabilities. */
export function runsAlone(scenario: Declaring, capabilities: Pick<CapabilitySet, 'has'>): boolean {
  return placement(scenario, capabilities) === 'alone';
}

/** Those that run alone first, then the others, each group in the order given; with a concurrency of 1, the order given. */
export function inRunOrder<J extends { readonly alone: boolean }>(jobs: readonly J[], concurrency: number): J[] {
  if (concurrency === 1) return [...jobs];
  return [...jobs.filter((job) => job.alone), ...jobs.filter((job) => !job.alone)];
}

export type Access = 'alone' | 'shared';

interface Waiting {
  readonly access: Access;
  readonly start: () => void;
}

/**
 * Runs tasks in the order they are queued, up to `concurrency` shared ones at a time; a task that
 * runs alone waits for the running ones to end and holds back every later one. Strictly first in,
 * first out: a task never overtakes one queued before it.
 */
export class Scheduler {
  readonly #concurrency: () => number;
  #running = 0;
  #alone = false;
  readonly #queue: Waiting[] = [];

  /** `concurrency` may change as the run goes (a far target's, target.ts): it is read whenever a task is queued or ends. */
  constructor(concurrency: number | (() => number)) {
    const read = typeof concurrency === 'number' ? () => concurrency : concurrency;
    const first = read();
    if (!Number.isInteger(first) || first < 1) throw new Error(`concurrency must be a positive whole number, not ${first}`);
    this.#concurrency = read;
  }

  get concurrency(): number {
    return this.#concurrency();
  }

  /** Queues `task` (at the head with `first`) and settles as it does. */
  run<T>(access: Access, task: () => Promise<T>, options: { readonly first?: boolean } = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiting: Waiting = {
        access,
        start: () => {
          this.#running++;
          if (access === 'alone') this.#alone = true;
          Promise.resolve()
            .then(task)
            .then(resolve, reject)
            .finally(() => {
              this.#running--;
              if (access === 'alone') this.#alone = false;
              this.#pump();
            });
        },
      };
      if (options.first) this.#queue.unshift(waiting);
      else this.#queue.push(waiting);
      this.#pump();
    });
  }

  #pump(): void {
    for (let next = this.#queue[0]; next !== undefined; next = this.#queue[0]) {
      const free = next.access === 'alone' ? this.#running === 0 : !this.#alone && this.#running < this.concurrency;
      if (!free) return;
      this.#queue.shift();
      next.start();
    }
  }
}

/** One piece of planned work: its access, whether vitest will run its test, and how to start it. */
export interface PlannedJob<T> {
  readonly alone: boolean;
  /** False when the test will not run (filtered out by name, `--only`, a skipped suite): the job never starts. */
  readonly willRun: () => boolean;
  readonly start: (signal: AbortSignal) => Promise<T>;
}

interface Planned<T> extends PlannedJob<T> {
  readonly controller: AbortController;
  result?: Promise<T>;
  readonly settled: Promise<void>;
  readonly settle: () => void;
}

/**
 * Work beside the planned jobs, in no slot of the scheduler (the exploration): `othersDone` settles
 * once every job the plan queued has run, so the work can take the time the jobs leave.
 */
export interface BesideJob<R> {
  readonly willRun: () => boolean;
  readonly start: (othersDone: Promise<void>, signal: AbortSignal) => Promise<R>;
}

interface Beside {
  readonly job: BesideJob<unknown>;
  readonly controller: AbortController;
  result?: Promise<unknown>;
  readonly settled: Promise<void>;
  readonly settle: () => void;
}

/**
 * The run's work, by key (a scenario of a file), queued in run order (`inRunOrder`) when the first
 * result is asked for and the run's other files have been discovered (`waitFor`, discovery.ts): by
 * then every job the run holds is known. Jobs added later (a file collected but not discovered) are
 * queued when one of theirs is asked for. Work beside the jobs (`addBeside`) starts when they are
 * queued.
 */
export class RunPlan<T> {
  readonly scheduler: Scheduler;
  readonly #jobs = new Map<string, Planned<T>>();
  readonly #beside = new Map<string, Beside>();
  #pending: Planned<T>[] = [];
  #ready: Promise<void> = Promise.resolve();

  constructor(scheduler: Scheduler) {
    this.scheduler = scheduler;
  }

  /** The job planned for `key`, if any. */
  get(key: string): PlannedJob<T> | undefined {
    return this.#jobs.get(key);
  }

  /** Plans `job` for `key`; a key already planned keeps its job. */
  add(key: string, job: PlannedJob<T>): PlannedJob<T> {
    const known = this.#jobs.get(key);
    if (known !== undefined) return known;
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const planned: Planned<T> = { ...job, controller: new AbortController(), settled, settle };
    this.#jobs.set(key, planned);
    this.#pending.push(planned);
    return planned;
  }

  /** Queues nothing before `ready` has settled (the discovery of the run's other files). */
  waitFor(ready: Promise<unknown>): void {
    const before = this.#ready;
    this.#ready = Promise.all([before, ready.catch(() => undefined)]).then(() => undefined);
  }

  /** The job's result; aborting `signal` (the test's) aborts the job. */
  async result(job: PlannedJob<T>, signal?: AbortSignal): Promise<T> {
    const planned = job as Planned<T>;
    if (signal?.aborted) planned.controller.abort(signal.reason);
    else signal?.addEventListener('abort', () => planned.controller.abort(signal.reason), { once: true });
    await this.#ready;
    this.#queuePending();
    // A job whose test runs although it looked filtered out starts now, in its turn.
    planned.result ??= this.#queue(planned);
    return planned.result;
  }

  /** Settles once every one of `jobs` has run (never, for a job that is never queued). */
  async settled(jobs: readonly PlannedJob<T>[]): Promise<void> {
    await Promise.all(jobs.map((job) => (job as Planned<T>).settled));
  }

  /** Plans work beside the jobs for `key`; a key already planned keeps its work. */
  addBeside<R>(key: string, job: BesideJob<R>): void {
    if (this.#beside.has(key)) return;
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    this.#beside.set(key, { job: job as BesideJob<unknown>, controller: new AbortController(), settled, settle });
  }

  /** The result of the work beside the jobs planned for `key` (started now, with the jobs, if it was not yet); aborting `signal` aborts it. */
  async besideResult<R>(key: string, signal?: AbortSignal): Promise<R> {
    const beside = this.#beside.get(key);
    if (beside === undefined) throw new Error(`nothing is planned beside the jobs for ${key}`);
    signal?.addEventListener('abort', () => beside.controller.abort(signal.reason), { once: true });
    await this.#ready;
    this.#queuePending();
    beside.result ??= this.#startBeside(beside);
    return beside.result as Promise<R>;
  }

  /** Settles once the work beside the jobs planned for `key` has ended (never, if it never starts). */
  besideSettled(key: string): Promise<void> {
    return this.#beside.get(key)?.settled ?? Promise.resolve();
  }

  /** Runs `task` beside the shared jobs, ahead of every queued one (a test file's cleanup). */
  first<R>(task: () => Promise<R>): Promise<R> {
    return this.scheduler.run('shared', task, { first: true });
  }

  #queuePending(): void {
    const pending = this.#pending;
    this.#pending = [];
    for (const planned of inRunOrder(pending.filter((p) => p.willRun()), this.scheduler.concurrency)) planned.result ??= this.#queue(planned);
    for (const beside of this.#beside.values()) if (beside.result === undefined && beside.job.willRun()) beside.result = this.#startBeside(beside);
  }

  #startBeside(beside: Beside): Promise<unknown> {
    const result = Promise.resolve().then(() => beside.job.start(this.#drained(), beside.controller.signal));
    // Its test awaits it; until then a rejection is not unhandled.
    void result.then(beside.settle, beside.settle);
    return result;
  }

  /** Settles once every queued job has run, those queued while waiting included. */
  async #drained(): Promise<void> {
    for (let waited = -1; ; ) {
      const queued = [...this.#jobs.values()].filter((planned) => planned.result !== undefined);
      if (queued.length === waited) return;
      waited = queued.length;
      await Promise.all(queued.map((planned) => planned.settled));
    }
  }

  #queue(planned: Planned<T>): Promise<T> {
    const result = this.scheduler.run(planned.alone ? 'alone' : 'shared', () => planned.start(planned.controller.signal));
    void result.then(planned.settle, planned.settle);
    return result;
  }
}
