import { describe, expect, it } from 'vitest';
import { aloneAfter, explorationBudget, leftoverPacer } from './pace.ts';

/** Keeps the event loop busy: a chain of macrotasks each blocking for `ms`, until `stop()`. */
function busyLoop(ms: number): () => void {
  let running = true;
  const spin = () => {
    if (!running) return;
    const until = performance.now() + ms;
    while (performance.now() < until) {
      // busy
    }
    setImmediate(spin);
  };
  setImmediate(spin);
  return () => (running = false);
}

describe('pacing beside other work of the process', () => {
  it('waits while the event loop is busy, and not once the other work is done', async () => {
    let done!: () => void;
    const pace = leftoverPacer(new Promise<void>((resolve) => (done = resolve)));
    const stop = busyLoop(10);
    const started = performance.now();
    await pace();
    const busy = performance.now() - started;
    stop();
    // A turn of the busy loop takes about 10 ms, and the pacer then waits a few times as long.
    expect(busy).toBeGreaterThan(30);
    done();
    await Promise.resolve();
    // Done: it returns at once, without even a turn of the loop (a macrotask queued before it has not run).
    let turned = false;
    setImmediate(() => (turned = true));
    await pace();
    expect(turned).toBe(false);
  });
});

describe('the time an exploration has alone', () => {
  it('starts when the other work is done, whether it ended well or not, and lasts as long as asked', async () => {
    for (const ends of ['resolves', 'rejects'] as const) {
      let end!: () => void;
      const work = new Promise<void>((resolve, reject) => (end = ends === 'resolves' ? resolve : () => reject(new Error('failed'))));
      let stopped = false;
      const stopping = aloneAfter(work, { leastMs: 150 }).then(() => (stopped = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      // However long the other work takes, the exploration's time alone has not begun.
      expect(stopped, ends).toBe(false);
      const endedAt = performance.now();
      end();
      await stopping;
      expect(performance.now() - endedAt, ends).toBeGreaterThanOrEqual(140);
    }
  });

  it('fills the exploration up to the time asked since it began, when the other work ends early; at least the least time when it ends late', async () => {
    const startedAt = performance.now();
    const stopping = aloneAfter(Promise.resolve(), { leastMs: 50, fillMs: 400 }, startedAt);
    await stopping;
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(390);
    const lateStart = performance.now() - 1_000;
    const before = performance.now();
    await aloneAfter(Promise.resolve(), { leastMs: 150, fillMs: 400 }, lateStart);
    const waited = performance.now() - before;
    expect(waited).toBeGreaterThanOrEqual(140);
    expect(waited).toBeLessThan(390);
  });
});

describe("a conformance run's exploration budget", () => {
  it('fills the run to 90 s by default, at least 10 s alone; a time alone that is set is exact; whole numbers only', () => {
    expect(explorationBudget({})).toEqual({ runs: 1000, seconds: 10, fillSeconds: 90 });
    expect(explorationBudget({ CONFORMANCE_EXPLORE_SECONDS: '' })).toEqual({ runs: 1000, seconds: 10, fillSeconds: 90 });
    expect(explorationBudget({ CONFORMANCE_EXPLORE_SECONDS: '3', CONFORMANCE_EXPLORE_RUNS: '0' })).toEqual({ runs: 0, seconds: 3 });
    expect(() => explorationBudget({ CONFORMANCE_EXPLORE_SECONDS: '2.5' })).toThrow('CONFORMANCE_EXPLORE_SECONDS must be a whole number');
  });
});
