import { describe, expect, it } from 'vitest';
import { RateLimiter, type LimiterClock } from './rate-limit.ts';
import { Transport } from './http.ts';
import { EvidenceLog } from './evidence.ts';
import { json, startServer } from './testing.ts';

/** A clock that only moves when slept on: every sleep advances it at once, and is recorded. */
function fakeClock(): LimiterClock & { readonly slept: number[] } {
  let now = 1_000_000;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

describe('RateLimiter', () => {
  it('lets at most its limit of requests be in flight; a released place goes to the next waiting one', async () => {
    const limiter = new RateLimiter(2, fakeClock());
    const first = await limiter.acquire();
    await limiter.acquire();
    let third = false;
    const waiting = limiter.acquire().then((release) => {
      third = true;
      return release;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(third).toBe(false);
    first();
    first(); // releasing twice gives back one place only
    (await waiting)();
    expect(third).toBe(true);
  });

  it('after a 429 every request waits the Retry-After, and half as many go at once, growing back one per round of answers', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(8, clock);
    limiter.throttled(54_000);
    expect(limiter.allowed).toBe(4);
    expect(limiter.pausedFor()).toBe(54_000);
    const release = await limiter.acquire();
    expect(clock.slept).toEqual([54_000]);
    release();
    limiter.throttled(1_000);
    expect(limiter.allowed).toBe(2);
    for (let i = 0; i < 2; i++) limiter.served();
    expect(limiter.allowed).toBe(3);
    for (let i = 0; i < 3 + 4 + 5 + 6 + 7; i++) limiter.served();
    expect(limiter.allowed).toBe(8);
    limiter.served();
    expect(limiter.allowed).toBe(8);
  });

  it('halves the requests in flight each round the latency stays climbed well above its floor, and grows them back once it falls', () => {
    const limiter = new RateLimiter(8, fakeClock());
    for (let i = 0; i < 20; i++) limiter.served(40);
    expect(limiter.allowed).toBe(8);
    // The target slows down under the run's load: 40 ms → 470 ms (issue 26).
    const rounds: number[] = [];
    for (let i = 0; i < 40; i++) {
      limiter.served(470);
      rounds.push(limiter.allowed);
    }
    expect(Math.min(...rounds)).toBe(1);
    expect(rounds.indexOf(4)).toBeGreaterThan(0);
    for (let i = 0; i < 200; i++) limiter.served(40);
    expect(limiter.allowed).toBe(8);
  });

  it('does not back off for a target that is slow from the start (far away, or a proxy adding latency), nor for jitter', () => {
    const slow = new RateLimiter(8, fakeClock());
    for (let i = 0; i < 100; i++) slow.served(400 + (i % 3) * 50);
    expect(slow.allowed).toBe(8);
    const jittery = new RateLimiter(8, fakeClock());
    for (let i = 0; i < 100; i++) jittery.served(i % 10 === 0 ? 120 : 2);
    expect(jittery.allowed).toBe(8);
  });

  it('waits no longer than it is allowed to (the run deadline), and gives up a wait when aborted', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(1, clock);
    limiter.throttled(3_600_000);
    (await limiter.acquire(undefined, 5_000))();
    expect(clock.slept).toEqual([5_000]);
    const hold = await limiter.acquire(undefined, 0);
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal, 0);
    controller.abort(new Error('scenario timed out'));
    await expect(waiting).rejects.toThrow('scenario timed out');
    hold();
    (await limiter.acquire(undefined, 0))();
  });
});

describe('a transport with the run limiter', () => {
  it('slows every request of the run after one is answered 429, and none fails for it', async () => {
    let calls = 0;
    const server = await startServer((_req, res) => {
      calls++;
      if (calls === 1) return json(res, 429, { message: 'slow down', code: 'rate_limited', env: 'sandbox' }, { 'retry-after': '2' });
      json(res, 200, { ok: true });
    });
    try {
      const clock = fakeClock();
      const limiter = new RateLimiter(4, clock);
      const options = { baseUrl: server.url, apiKey: 'am_sk_test_x', apiVersion: '2.4.0', timeoutMs: 5_000, evidence: new EvidenceLog(), limiter };
      const retry = { sleep: clock.sleep, now: clock.now, random: () => 0 };
      const one = new Transport({ ...options, retry });
      const other = new Transport({ ...options, retry });
      const first = await one.send({ label: 'a', path: '/v1/a', body: '{}' }, (res) => ({ value: res.status }));
      expect(first.value).toBe(200);
      expect(first.exchange.retries).toEqual([{ status: 429, waitedMs: 2_000 }]);
      expect(limiter.allowed).toBe(2);
      // The other transport of the run is held back too (its own request never saw the 429).
      const sleptBefore = clock.slept.length;
      limiter.throttled(1_000);
      const second = await other.send({ label: 'b', path: '/v1/b', body: '{}' }, (res) => ({ value: res.status }));
      expect(second.value).toBe(200);
      expect(clock.slept.slice(sleptBefore)).toEqual([1_000]);
      await one.close();
      await other.close();
    } finally {
      await server.close();
    }
  });
});
