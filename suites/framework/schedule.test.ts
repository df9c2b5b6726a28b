import { describe, expect, it } from 'vitest';
import { capabilitySet } from './capabilities.ts';
import { inRunOrder, placement, RunPlan, runsAlone, Scheduler, type Access } from './schedule.ts';

/** Lets every pending promise callback run (the scheduler starts what an end made room for). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A task that records when it starts and ends, and ends when `finish` is called. */
function recorder() {
  const log: string[] = [];
  const running = new Set<string>();
  let most = 0;
  const finishers = new Map<string, () => void>();
  const task = (name: string) => () =>
    new Promise<string>((resolve) => {
      log.push(`start ${name}`);
      running.add(name);
      most = Math.max(most, running.size);
      finishers.set(name, () => {
        running.delete(name);
        log.push(`end ${name}`);
        resolve(name);
      });
    });
  const finish = async (name: string) => {
    finishers.get(name)!();
    // Let the scheduler start what the end made room for.
    await settle();
  };
  return { log, running, task, finish, most: () => most };
}

describe('Scheduler', () => {
  it('runs shared tasks up to its concurrency, in the order queued', async () => {
    const r = recorder();
    const scheduler = new Scheduler(2);
    const done = ['a', 'b', 'c'].map((name) => scheduler.run('shared', r.task(name)));
    await settle();
    expect([...r.running]).toEqual(['a', 'b']);
    await r.finish('b');
    expect([...r.running]).toEqual(['a', 'c']);
    await r.finish('a');
    await r.finish('c');
    expect(await Promise.all(done)).toEqual(['a', 'b', 'c']);
    expect(r.most()).toBe(2);
  });

  it('starts a task that runs alone only when nothing runs, and starts nothing while it runs', async () => {
    const r = recorder();
    const scheduler = new Scheduler(4);
    const queue: [string, Access][] = [['a', 'shared'], ['b', 'shared'], ['x', 'alone'], ['c', 'shared']];
    const done = queue.map(([name, access]) => scheduler.run(access, r.task(name)));
    await settle();
    // c is not let past x, although a place is free: first in, first out.
    expect([...r.running]).toEqual(['a', 'b']);
    await r.finish('a');
    expect([...r.running]).toEqual(['b']);
    await r.finish('b');
    expect([...r.running]).toEqual(['x']);
    await r.finish('x');
    expect([...r.running]).toEqual(['c']);
    await r.finish('c');
    await Promise.all(done);
    expect(r.log).toEqual(['start a', 'start b', 'end a', 'end b', 'start x', 'end x', 'start c', 'end c']);
  });

  it('puts a task queued `first` ahead of the waiting ones, and passes on a task that throws', async () => {
    const r = recorder();
    const scheduler = new Scheduler(1);
    const a = scheduler.run('shared', r.task('a'));
    const b = scheduler.run('shared', r.task('b'));
    const cleanup = scheduler.run('shared', r.task('cleanup'), { first: true });
    const broken = scheduler.run('shared', () => Promise.reject(new Error('broken'))).catch((error: unknown) => error);
    await settle();
    await r.finish('a');
    expect([...r.running]).toEqual(['cleanup']);
    await r.finish('cleanup');
    await r.finish('b');
    expect(await broken).toEqual(new Error('broken'));
    expect(await Promise.all([a, b, cleanup])).toEqual(['a', 'b', 'cleanup']);
  });

  it('reads a concurrency that changes as the run goes (a far target, target.ts) whenever a task ends', async () => {
    const r = recorder();
    let concurrency = 1;
    const scheduler = new Scheduler(() => concurrency);
    const done = ['a', 'b', 'c', 'd'].map((name) => scheduler.run('shared', r.task(name)));
    await settle();
    expect([...r.running]).toEqual(['a']);
    concurrency = 3;
    await r.finish('a');
    expect([...r.running]).toEqual(['b', 'c', 'd']);
    for (const name of ['b', 'c', 'd']) await r.finish(name);
    await Promise.all(done);
  });

  it('refuses a concurrency that is not a positive whole number', () => {
    expect(() => new Scheduler(0)).toThrow(/positive whole number/);
    expect(() => new Scheduler(1.5)).toThrow(/positive whole number/);
  });
});

describe('which scenarios run alone, and in what order', () => {
  const everything = capabilitySet(new Set(['control-plane', 'exclusive-tenant', 'paid-attach', 'mutation']));
  const deployment = capabilitySet(new Set(['paid-attach', 'mutation']));

  it('a scenario that needs or uses the control plane or the tenant to itself runs alone, where the target has it', () => {
    const needsClock = { needs: ['control-plane'] as const, uses: [] };
    const readsClock = { needs: [], uses: ['control-plane'] as const };
    const orFixture = { needs: [['control-plane', 'fixture:past_due_subscription']] as const, uses: [] };
    const autoEnable = { needs: ['exclusive-tenant'] as const, uses: [] };
    const paid = { needs: ['paid-attach'] as const, uses: [] };
    expect([needsClock, readsClock, orFixture, autoEnable, paid].map((s) => runsAlone(s, everything))).toEqual([true, true, true, true, false]);
    // Without the capability it is skipped, or done without: nothing to keep apart.
    expect([needsClock, readsClock, orFixture, autoEnable].map((s) => runsAlone(s, deployment))).toEqual([false, false, false, false]);
  });

  it('where the target makes organisations, one that would run alone runs in one of its own, beside the others; one using a fixture stays alone', () => {
    const fake = capabilitySet(new Set(['control-plane', 'exclusive-tenant', 'own-tenant', 'paid-attach', 'mutation']));
    const withFixture = capabilitySet(new Set([...fake.available, 'fixture:past_due_subscription']));
    const needsClock = { needs: ['control-plane'] as const, uses: [] };
    const readsClock = { needs: [], uses: ['control-plane'] as const };
    const orFixture = { needs: [['control-plane', 'fixture:past_due_subscription']] as const, uses: [] };
    const autoEnable = { needs: ['exclusive-tenant'] as const, uses: [] };
    const paid = { needs: ['paid-attach'] as const, uses: [] };
    const all = [needsClock, readsClock, orFixture, autoEnable, paid];
    expect(all.map((s) => placement(s, fake))).toEqual(['own-tenant', 'own-tenant', 'own-tenant', 'own-tenant', 'shared']);
    expect(all.map((s) => runsAlone(s, fake))).toEqual([false, false, false, false, false]);
    // The fixtures are records of the run's tenant: a scenario that may use one is kept there, alone.
    expect(all.map((s) => placement(s, withFixture))).toEqual(['own-tenant', 'own-tenant', 'alone', 'own-tenant', 'shared']);
    // Without tenants.create (a deployment, a profile without the control plane) nothing changes.
    expect(all.map((s) => placement(s, everything))).toEqual(['alone', 'alone', 'alone', 'alone', 'shared']);
    expect(all.map((s) => placement(s, deployment))).toEqual(['shared', 'shared', 'shared', 'shared', 'shared']);
  });

  it('puts those that run alone first, each group in the order given; with one at a time, keeps the order given', () => {
    const jobs = [{ id: 1, alone: false }, { id: 2, alone: true }, { id: 3, alone: false }, { id: 4, alone: true }];
    expect(inRunOrder(jobs, 8).map((j) => j.id)).toEqual([2, 4, 1, 3]);
    expect(inRunOrder(jobs, 1).map((j) => j.id)).toEqual([1, 2, 3, 4]);
  });
});

describe('RunPlan', () => {
  /** A plan whose jobs record when they start. */
  function planWith(concurrency: number) {
    const started: string[] = [];
    const plan = new RunPlan<string>(new Scheduler(concurrency));
    const job = (name: string, alone: boolean, willRun = true) =>
      plan.add(name, {
        alone,
        willRun: () => willRun,
        start: async () => {
          started.push(name);
          return name;
        },
      });
    return { plan, job, started };
  }

  it('queues every job whose test will run when the first result is asked for, those that run alone first, and never starts the others', async () => {
    const { plan, job, started } = planWith(4);
    const a = job('a', false);
    job('filtered-out', false, false);
    job('x', true);
    const b = job('b', false);
    expect(started).toEqual([]);
    expect(await plan.result(b)).toBe('b');
    expect(await plan.result(a)).toBe('a');
    expect(started).toEqual(['x', 'a', 'b']);
    await plan.settled([a, b]);
  });

  it('keeps the first job planned for a key, and queues nothing before the discovery it waits for', async () => {
    const { plan, job, started } = planWith(2);
    const a = job('a', false);
    expect(job('a', true)).toBe(a);
    expect(plan.get('a')).toBe(a);
    let discovered!: () => void;
    plan.waitFor(new Promise<void>((resolve) => (discovered = resolve)));
    const result = plan.result(a);
    await settle();
    expect(started).toEqual([]);
    // Found meanwhile in another file: it runs alone, so it goes first.
    job('x', true);
    discovered();
    expect(await result).toBe('a');
    expect(started).toEqual(['x', 'a']);
  });

  it("aborts a job when its test's signal aborts", async () => {
    const plan = new RunPlan<string>(new Scheduler(1));
    const job = plan.add('a', {
      alone: false,
      willRun: () => true,
      start: (signal) =>
        new Promise((_, reject) => {
          if (signal.aborted) reject(signal.reason as Error);
          signal.addEventListener('abort', () => reject(signal.reason as Error));
        }),
    });
    const test = new AbortController();
    const result = plan.result(job, test.signal);
    test.abort(new Error('test timed out'));
    await expect(result).rejects.toThrow('test timed out');
  });
});

describe('work beside the planned jobs', () => {
  it('starts with the jobs, in no slot of the scheduler, and is told when every queued job has run', async () => {
    const plan = new RunPlan<string>(new Scheduler(1));
    const { task, finish, log } = recorder();
    const a = plan.add('a', { alone: false, willRun: () => true, start: task('a') });
    const b = plan.add('b', { alone: true, willRun: () => true, start: task('b') });
    let othersDone = false;
    plan.addBeside('explore', {
      willRun: () => true,
      start: async (done) => {
        log.push('start beside');
        await done;
        othersDone = true;
        return 'explored';
      },
    });
    const first = plan.result(a);
    await settle();
    // The beside work started with the jobs although the one slot is taken.
    expect(log).toEqual(['start a', 'start beside']);
    await finish('a');
    expect(await first).toBe('a');
    expect(othersDone).toBe(false);
    await finish('b');
    expect(await plan.besideResult('explore')).toBe('explored');
    expect(othersDone).toBe(true);
    await plan.besideSettled('explore');
    await plan.settled([a, b]);
  });

  it('starts with its own result when no job was planned, told at once that the others are done; never when its test will not run', async () => {
    const plan = new RunPlan<string>(new Scheduler(2));
    let started = 0;
    plan.addBeside('explore', { willRun: () => true, start: async (done) => (await done, ++started) });
    plan.addBeside('filtered', { willRun: () => false, start: async () => ++started });
    expect(await plan.besideResult('explore')).toBe(1);
    expect(started).toBe(1);
  });
});
