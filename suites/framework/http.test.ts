import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvidenceLog } from './evidence.ts';
import { RunGuard } from './guard.ts';
import { Transport, TransportError, type TransportOptions } from './http.ts';
import type { RetryPolicy } from './retry.ts';
import { json, startServer, TEST_KEY, type TestServer } from './testing.ts';

/** A retry policy that never waits: it records the delays it was asked for and moves a fake clock. */
function fakeTime(overrides: Partial<RetryPolicy> = {}) {
  const slept: number[] = [];
  let clock = 0;
  const policy: Partial<RetryPolicy> = {
    random: () => 0.5,
    now: () => clock,
    sleep: async (ms) => {
      slept.push(ms);
      clock += ms;
    },
    ...overrides,
  };
  return { slept, policy };
}

let server: TestServer;
/** Per-path scripted answers, consumed in order; the last one repeats. */
const scripts = new Map<string, ((res: import('node:http').ServerResponse, req: { body: string; headers: Record<string, unknown> }) => void)[]>();
const hits = new Map<string, number>();

beforeAll(async () => {
  server = await startServer((req, res) => {
    const path = req.url;
    const n = hits.get(path) ?? 0;
    hits.set(path, n + 1);
    const script = scripts.get(path);
    const step = script?.[Math.min(n, script.length - 1)];
    if (step) step(res, { body: req.body, headers: req.headers });
    else json(res, 404, { message: 'no script', code: 'not_found', env: 'sandbox' });
  });
});
afterAll(() => server.close());

function transport(options: Partial<TransportOptions> = {}): Transport {
  return new Transport({ baseUrl: server.url, apiKey: TEST_KEY, apiVersion: '2.4.0', timeoutMs: 5_000, evidence: new EvidenceLog(), ...options });
}
const passThrough = (res: unknown) => ({ value: res });
let pathCounter = 0;
/** A fresh path with a script, so concurrent tests never share counters. */
function scripted(...steps: NonNullable<ReturnType<typeof scripts.get>>): string {
  const path = `/v1/case_${++pathCounter}`;
  scripts.set(path, steps);
  return path;
}

describe('Transport headers', () => {
  it('sends the bearer key, x-api-version and content-type, and lets a caller remove or replace one', async () => {
    const seen: Record<string, unknown>[] = [];
    const path = scripted((res, req) => {
      seen.push(req.headers);
      json(res, 200, {});
    });
    const t = transport({ apiVersion: '2.3.0' });
    await t.send({ label: 'raw', path, body: '{}' }, passThrough);
    await t.send({ label: 'raw', path, body: '{}', headers: { Authorization: null, 'X-Api-Version': 'garbage' } }, passThrough);
    expect(seen[0]).toMatchObject({ authorization: `Bearer ${TEST_KEY}`, 'x-api-version': '2.3.0', 'content-type': 'application/json' });
    expect(seen[1]).not.toHaveProperty('authorization');
    expect(seen[1]).toMatchObject({ 'x-api-version': 'garbage' });
  });
});

describe('Transport retries', () => {
  it('honours Retry-After on 429 and 503, then returns the answer that ended the retries', async () => {
    const { slept, policy } = fakeTime();
    const path = scripted(
      (res) => json(res, 429, { message: 'slow down', code: 'rate_limit_exceeded', env: 'sandbox' }, { 'retry-after': '2' }),
      (res) => json(res, 503, { message: 'busy', code: 'unavailable', env: 'sandbox' }, { 'retry-after': '1' }),
      (res) => json(res, 200, { ok: true }),
    );
    const { value, exchange } = await transport({ retry: policy }).send({ label: 'raw', path, body: '{}' }, (res) => ({ value: res.status }));
    expect(value).toBe(200);
    expect(slept).toEqual([2_000, 1_000]);
    expect(exchange.attempts).toBe(3);
    expect(exchange.retries).toEqual([
      { status: 429, waitedMs: 2_000 },
      { status: 503, waitedMs: 1_000 },
    ]);
    expect(exchange.response?.status).toBe(200);
  });

  it('backs off with jitter when there is no Retry-After, and gives up after maxAttempts', async () => {
    const { slept, policy } = fakeTime({ maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 10_000, random: () => 0.5 });
    const path = scripted((res) => json(res, 503, { message: 'down', code: 'unavailable', env: 'sandbox' }));
    const { value, exchange } = await transport({ retry: policy }).send({ label: 'raw', path, body: '{}' }, (res) => ({ value: res.status }));
    expect(value).toBe(503);
    expect(hits.get(path)).toBe(4);
    expect(slept).toEqual([50, 100, 200]);
    expect(exchange.attempts).toBe(4);
  });

  it('does not wait past the total budget: a long Retry-After ends the retries at once', async () => {
    const { slept, policy } = fakeTime({ maxTotalMs: 10_000 });
    const path = scripted((res) => json(res, 429, { message: 'later', code: 'rate_limit_exceeded', env: 'sandbox' }, { 'retry-after': '60' }));
    const { value, exchange } = await transport({ retry: policy }).send({ label: 'raw', path, body: '{}' }, (res) => ({ value: res.status }));
    expect(value).toBe(429);
    expect(slept).toEqual([]);
    expect(exchange.attempts).toBe(1);
  });

  it('does not retry other statuses', async () => {
    const { slept, policy } = fakeTime();
    const path = scripted((res) => json(res, 500, { message: 'boom', code: 'internal_error', env: 'sandbox' }));
    const { value } = await transport({ retry: policy }).send({ label: 'raw', path, body: '{}' }, (res) => ({ value: res.status }));
    expect(value).toBe(500);
    expect(hits.get(path)).toBe(1);
    expect(slept).toEqual([]);
  });

  it('retries a connection the server drops, and reports the reset in the evidence', async () => {
    const { policy } = fakeTime();
    const path = scripted(
      (res) => res.socket?.destroy(),
      (res) => json(res, 200, { ok: true }),
    );
    const { value, exchange } = await transport({ retry: policy }).send({ label: 'raw', path, body: '{}' }, (res) => ({ value: res.status }));
    expect(value).toBe(200);
    expect(exchange.attempts).toBe(2);
    expect(exchange.retries[0]?.error).toMatch(/UND_ERR_SOCKET|ECONNRESET/);
  });

  it('stops waiting and throws when the caller aborts during a retry wait', async () => {
    const controller = new AbortController();
    const path = scripted((res) => json(res, 503, { message: 'down', code: 'unavailable', env: 'sandbox' }));
    const t = transport({
      retry: {
        sleep: async () => {
          controller.abort();
        },
      },
    }).with({ signal: controller.signal });
    const error = await t.send({ label: 'raw', path, body: '{}' }, passThrough).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).kind).toBe('aborted');
    expect(hits.get(path)).toBe(1);
  });
});

describe('Transport timeouts and failures', () => {
  it('fails with a timeout when the server never answers, and records the exchange', async () => {
    const path = scripted(() => {
      /* never answer */
    });
    const evidence = new EvidenceLog();
    const error = await transport({ timeoutMs: 150, evidence, retry: false })
      .send({ label: 'things.get', path, body: '{}' }, passThrough)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).kind).toBe('timeout');
    expect((error as TransportError).message).toContain('things.get: no response within 150 ms');
    expect(evidence.entries()).toHaveLength(1);
    expect(evidence.entries()[0]).toMatchObject({ label: 'things.get', error: 'no response within 150 ms' });
    expect(evidence.entries()[0]?.response).toBeUndefined();
  });

  it('does not retry a timeout (the request may have been applied)', async () => {
    const { slept, policy } = fakeTime();
    const path = scripted(() => {
      /* never answer */
    });
    await expect(transport({ timeoutMs: 100, retry: policy }).send({ label: 'raw', path, body: '{}' }, passThrough)).rejects.toThrow(TransportError);
    expect(slept).toEqual([]);
  });

  it('reports a refused connection as a connection failure without retrying', async () => {
    const { slept, policy } = fakeTime();
    const closed = await startServer(() => undefined);
    await closed.close();
    const t = new Transport({ baseUrl: closed.url, apiKey: TEST_KEY, apiVersion: '2.4.0', timeoutMs: 2_000, evidence: new EvidenceLog(), retry: policy });
    const error = await t.send({ label: 'raw', path: '/v1/x', body: '{}' }, passThrough).catch((e: unknown) => e);
    expect((error as TransportError).kind).toBe('connection');
    expect((error as TransportError).message).toContain('ECONNREFUSED');
    expect(slept).toEqual([]);
  });
});

describe('Transport evidence', () => {
  it('never stores the key, even in a log created without secrets and when the server echoes it', async () => {
    const path = scripted((res, req) => json(res, 401, { message: `Invalid secret key: ${String(req.headers['authorization'])}`, echo: req.body, code: 'invalid_secret_key', env: 'sandbox' }));
    const evidence = new EvidenceLog();
    const t = transport({ evidence });
    await t.send({ label: 'raw', path, body: JSON.stringify({ note: TEST_KEY }) }, passThrough);
    await t.send({ label: 'raw', path: '/v1/unscripted', body: undefined, headers: { 'x-extra': `again ${TEST_KEY}` } }, passThrough);
    const stored = JSON.stringify(evidence.entries());
    expect(stored).not.toContain(TEST_KEY);
    expect(evidence.entries()[0]?.request.headers['authorization']).toBe('Bearer [REDACTED]');
    expect(evidence.entries()[0]?.request.body).toEqual({ note: '[REDACTED]' });
  });

  it('records method, URL, status, response headers, parsed bodies and the attempt count', async () => {
    const path = scripted((res) => json(res, 200, { id: 'x' }, { 'x-request-id': 'r1' }));
    const evidence = new EvidenceLog();
    await transport({ evidence }).send({ label: 'things.get', path, body: '{"thing_id":"x"}' }, passThrough);
    expect(evidence.entries()[0]).toMatchObject({
      seq: 1,
      label: 'things.get',
      attempts: 1,
      retries: [],
      request: { method: 'POST', url: `${server.url}${path}`, body: { thing_id: 'x' } },
      response: { status: 200, headers: { 'x-request-id': 'r1' }, body: { id: 'x' } },
    });
    expect(evidence.entries()[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('records into the scoped log given by with(), and into its parent', async () => {
    const path = scripted((res) => json(res, 200, {}));
    const root = new EvidenceLog();
    const scoped = root.child();
    const base = transport({ evidence: root });
    await base.with({ evidence: scoped }).send({ label: 'scoped', path, body: '{}' }, passThrough);
    await base.send({ label: 'unscoped', path, body: '{}' }, passThrough);
    expect(scoped.entries().map((e) => e.label)).toEqual(['scoped']);
    expect(root.entries().map((e) => e.label)).toEqual(['scoped', 'unscoped']);
  });
});

describe('Transport faults', () => {
  it('marks answers that say nothing about the interface: 5xx, 429 beyond the budget, a body that is not JSON', async () => {
    const evidence = new EvidenceLog();
    const t = transport({ evidence, retry: false });
    const answers: [string, (res: import('node:http').ServerResponse) => void][] = [
      ['server-error', (res) => json(res, 502, { message: 'bad gateway', code: 'bad_gateway', env: 'sandbox' })],
      ['rate-limited', (res) => json(res, 429, { message: 'later', code: 'rate_limit_exceeded', env: 'sandbox' })],
      ['unparseable', (res) => json(res, 200, '<html>hello</html>')],
      ['none', (res) => json(res, 404, { message: 'no', code: 'not_found', env: 'sandbox' })],
      ['none', (res) => json(res, 200, { id: 'x' })],
    ];
    for (const [, answer] of answers) await t.send({ label: 'raw', path: scripted(answer), body: '{}' }, passThrough);
    expect(evidence.entries().map((e) => e.fault ?? 'none')).toEqual(answers.map(([fault]) => fault));
  });

  it('marks an exchange without a usable answer with its failure kind', async () => {
    const evidence = new EvidenceLog();
    await transport({ evidence, timeoutMs: 50, retry: false }).send({ label: 'raw', path: scripted(() => {}), body: '{}' }, passThrough).catch(() => undefined);
    expect(evidence.entries()[0]?.fault).toBe('timeout');
  });
});

describe('Transport body cap', () => {
  it('refuses a body whose content-length is over the cap without reading it, keeping the status in the evidence', async () => {
    const path = scripted((res) => json(res, 200, 'x'.repeat(5_000), { 'content-length': '5000' }));
    const evidence = new EvidenceLog();
    const error = await transport({ evidence, maxBodyBytes: 1_000 }).send({ label: 'things.get', path, body: '{}' }, passThrough).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).kind).toBe('oversize');
    expect((error as TransportError).message).toMatch(/things\.get: the answer's body is longer than the 1000-byte cap \(CONFORMANCE_MAX_BODY_BYTES\): content-length 5000, not read/);
    expect(evidence.entries()[0]).toMatchObject({ response: { status: 200, body: undefined }, error: expect.stringMatching(/1000-byte cap/) });
  });

  it('cuts an endless body at the cap instead of buffering it', async () => {
    let written = 0;
    const path = scripted((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(16 * 1024, 'a');
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const error = await transport({ maxBodyBytes: 64 * 1024 }).send({ label: 'raw', path, body: '{}' }, passThrough).catch((e: unknown) => e);
    expect((error as TransportError).kind).toBe('oversize');
    expect((error as TransportError).message).toMatch(/reading stopped at the cap/);
    // The server stops writing once the client hangs up: far less than it would have sent in the 5 s timeout.
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('reads a body of exactly the cap', async () => {
    const body = JSON.stringify({ s: 'y'.repeat(90) });
    const path = scripted((res) => json(res, 200, body));
    const { value } = await transport({ maxBodyBytes: body.length }).send({ label: 'raw', path, body: '{}' }, (res) => ({ value: res.body }));
    expect(value).toEqual(JSON.parse(body));
  });
});

describe('Transport run guard', () => {
  const never = () => {
    /* never answer */
  };

  it('sends nothing once the deadline has passed, and never waits past it', async () => {
    const path = scripted((res) => json(res, 200, {}));
    const evidence = new EvidenceLog();
    const past = new RunGuard({ deadline: Date.now() - 1, maxNetworkFailures: 3 });
    const error = await transport({ evidence, guard: past }).send({ label: 'things.get', path, body: '{}' }, passThrough).catch((e: unknown) => e);
    expect((error as TransportError).kind).toBe('deadline');
    expect(evidence.entries()[0]?.error).toMatch(/^not sent: the run's deadline has passed/);
    expect(hits.get(path)).toBeUndefined();

    const stalls = scripted(never);
    const soon = new RunGuard({ deadline: Date.now() + 200, maxNetworkFailures: 3 });
    const timedOut = await transport({ guard: soon, timeoutMs: 30_000 }).send({ label: 'raw', path: stalls, body: '{}' }, passThrough).catch((e: unknown) => e);
    expect((timedOut as TransportError).kind).toBe('timeout');
    expect((timedOut as TransportError).message).toMatch(/no response within (1\d\d|200) ms/);
  });

  it('stops sending after maxNetworkFailures unserved requests in a row; a served one resets the count', async () => {
    const guard = new RunGuard({ deadline: Date.now() + 60_000, maxNetworkFailures: 2 });
    // Long enough for the served request to be answered while the worker collects garbage: the test
    // runs in a worker shared with other files (vitest.config.ts), and 100 ms failed under load.
    const t = transport({ guard, timeoutMs: 1_000, retry: false });
    const stalls = scripted(never);
    const ok = scripted((res) => json(res, 200, {}));
    const kind = (path: string) => t.send({ label: 'raw', path, body: '{}' }, passThrough).then(() => 'answered', (e: unknown) => (e as TransportError).kind);

    expect(await kind(stalls)).toBe('timeout');
    expect(await kind(ok)).toBe('answered');
    expect(guard.state().consecutiveFailures).toBe(0);
    expect([await kind(stalls), await kind(stalls)]).toEqual(['timeout', 'timeout']);
    const before = hits.get(ok);
    const refused = await t.send({ label: 'things.get', path: ok, body: '{}' }, passThrough).catch((e: unknown) => e);
    expect((refused as TransportError).kind).toBe('circuit-open');
    expect((refused as TransportError).message).toMatch(/not sent: the target left 2 requests in a row unserved \(last: raw: no response within 1000 ms\)/);
    expect(hits.get(ok)).toBe(before);
  });

  it('counts a 429 that outlasts the retry budget as unserved, and an answered 500 as served', async () => {
    const guard = new RunGuard({ deadline: Date.now() + 60_000, maxNetworkFailures: 5 });
    const limited = scripted((res) => json(res, 429, { message: 'later', code: 'rate_limit_exceeded', env: 'sandbox' }, { 'retry-after': '3600' }));
    const broken = scripted((res) => json(res, 500, { message: 'boom', code: 'internal_error', env: 'sandbox' }));
    const t = transport({ guard });
    expect((await t.send({ label: 'raw', path: limited, body: '{}' }, (res) => ({ value: res.status }))).value).toBe(429);
    expect(guard.state()).toEqual({ consecutiveFailures: 1, lastFailure: 'raw: 429 after 1 attempt(s), beyond the retry budget' });
    expect((await t.send({ label: 'raw', path: broken, body: '{}' }, (res) => ({ value: res.status }))).value).toBe(500);
    expect(guard.state().consecutiveFailures).toBe(0);
  });

  it('shares the count through its state file, as the test files of one run do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guard-'));
    try {
      const stateFile = join(dir, 'state.json');
      const first = new RunGuard({ deadline: Date.now() + 60_000, maxNetworkFailures: 2, stateFile });
      const second = new RunGuard({ deadline: Date.now() + 60_000, maxNetworkFailures: 2, stateFile });
      first.recordFailure('a');
      second.recordFailure('b');
      expect(first.refusal()).toMatchObject({ kind: 'circuit-open', message: expect.stringContaining('(last: b)') });
      second.recordServed();
      expect(first.refusal()).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
