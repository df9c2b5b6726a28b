/**
 * The fake's socket edge, spoken to in raw HTTP where a client library would tidy the request up:
 * oversized bodies, paths that normalise elsewhere, repeated Authorization headers, node's own
 * refusals, clients that go away, and closing with requests in flight.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFakeServer, type FakeServer } from '../index.ts';

const KEY = 'am_sk_test_fake0000000000000000000000000000000000000000';
const BODY_LIMIT = 1024;

let fake: FakeServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(options: Parameters<typeof createFakeServer>[0] = {}): Promise<FakeServer> {
  fake = await createFakeServer({ bodyLimit: BODY_LIMIT, ...options });
  return fake;
}

/** A raw connection that collects what the server sends and notices when it closes. */
async function open(server: FakeServer) {
  const { port } = new URL(server.url);
  const socket: Socket = connect(Number(port), '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
  socket.on('error', () => {});
  const closing = new Promise<void>((resolve) => socket.once('close', () => ((closed = true), resolve())));
  return {
    socket,
    get received() {
      return received;
    },
    get closed() {
      return closed;
    },
    /** Resolves once `count` complete answers have arrived (content-length framed). */
    async answers(count: number, withinMs = 5_000) {
      const deadline = Date.now() + withinMs;
      while (parseAnswers(received).length < count && !closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      return parseAnswers(received);
    },
    /** Whether the server closed the connection within `ms`. */
    async closedWithin(ms: number) {
      await Promise.race([closing, new Promise((r) => setTimeout(r, ms))]);
      return closed;
    },
  };
}

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

function parseAnswers(text: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) return answers;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    if (rest.length < end + 4 + length) return answers;
    answers.push({ status: Number(statusLine!.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
}

/** Sends raw HTTP on a connection of its own and returns the first answer (undefined if none came). */
async function exchange(server: FakeServer, raw: string): Promise<RawAnswer | undefined> {
  const connection = await open(server);
  connection.socket.write(raw);
  const [answer] = await connection.answers(1);
  connection.socket.destroy();
  return answer;
}

function post(path: string, body: string, headers: string[] = [`authorization: Bearer ${KEY}`]): string {
  return [`POST ${path} HTTP/1.1`, 'host: fake', 'content-type: application/json', `content-length: ${Buffer.byteLength(body)}`, ...headers, '', body].join('\r\n');
}

async function featureExists(server: FakeServer, featureId: string): Promise<boolean> {
  const response = await fetch(`${server.url}/v1/features.get`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: JSON.stringify({ feature_id: featureId }) });
  await response.arrayBuffer();
  return response.status === 200;
}

describe('an oversized body', () => {
  it('is answered 413 with connection: close, and the connection is closed rather than left stalled', async () => {
    const server = await start();
    for (const send of [
      // Declared too large, only part of it sent.
      (c: Awaited<ReturnType<typeof open>>) => c.socket.write(`${post('/v1/features.list', '').replace('content-length: 0', `content-length: ${BODY_LIMIT * 50}`)}{"a":"${'x'.repeat(2000)}`),
      // Chunked, growing past the limit as it arrives.
      (c: Awaited<ReturnType<typeof open>>) =>
        c.socket.write(
          ['POST /v1/features.list HTTP/1.1', 'host: fake', `authorization: Bearer ${KEY}`, 'transfer-encoding: chunked', '', `800\r\n${' '.repeat(0x800)}\r\n800\r\n${' '.repeat(0x800)}\r\n`].join('\r\n'),
        ),
    ]) {
      const connection = await open(server);
      send(connection);
      const [answer] = await connection.answers(1);
      expect(answer?.status).toBe(413);
      expect(answer?.headers['connection']).toBe('close');
      expect(JSON.parse(answer!.body)).toMatchObject({ code: 'payload_too_large', env: 'sandbox' });
      expect(await connection.closedWithin(2_000), 'the server closes the connection').toBe(true);
    }
  });

  it('leaves a keep-alive connection that stays within the limit serving request after request', async () => {
    const server = await start();
    const connection = await open(server);
    connection.socket.write(post('/v1/features.list', '{}') + post('/v1/features.list', '{}'));
    const answers = await connection.answers(2);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(connection.closed).toBe(false);
    connection.socket.destroy();
  });
});

describe('a path that is not in normal form', () => {
  it('names no route: /v1/../_fake/reset and its encoded forms never reach the control plane', async () => {
    const server = await start();
    const created = await fetch(`${server.url}/v1/features.create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ feature_id: 'kept', name: 'Kept', type: 'boolean' }),
    });
    expect(created.status).toBe(200);
    for (const path of ['/v1/../_fake/reset', '/v1/%2e%2e/_fake/reset', '/v1/.%2E/_fake/reset', '/v1/./../_fake/reset', '//_fake/reset', '/v1\\..\\_fake/reset']) {
      const answer = await exchange(server, post(path, '{}'));
      expect(answer?.status, path).toBe(404);
      expect(JSON.parse(answer!.body), path).toMatchObject({ code: 'route_not_found', env: 'sandbox' });
    }
    expect(await featureExists(server, 'kept'), 'nothing was reset').toBe(true);
    // The control plane itself is still reachable at its own path.
    expect((await exchange(server, post('/_fake/clock.get', '{}')))?.status).toBe(200);
  });
});

describe('repeated Authorization headers', () => {
  it('are refused with 400 invalid_request, whichever key comes first; one header is served', async () => {
    const server = await start();
    const answer = await exchange(server, post('/v1/features.list', '{}', [`authorization: Bearer ${KEY}`, 'authorization: Bearer am_sk_test_someoneelse000000000000']));
    expect(answer?.status).toBe(400);
    expect(JSON.parse(answer!.body)).toEqual({ message: 'Send one Authorization header, not 2', code: 'invalid_request', env: 'sandbox' });
    expect((await exchange(server, post('/v1/features.list', '{}')))?.status).toBe(200);
  });
});

describe("node's own refusals", () => {
  it('carry the {message, code, env} body: 431 for headers too large, 400 for a malformed request', async () => {
    const server = await start();
    const cases = [
      { raw: post('/v1/features.list', '{}', [`authorization: Bearer ${KEY}`, `x-padding: ${'p'.repeat(64 * 1024)}`]), status: 431, code: 'request_header_fields_too_large' },
      { raw: 'NOT HTTP AT ALL\r\n\r\n', status: 400, code: 'invalid_request' },
    ];
    for (const { raw, status, code } of cases) {
      const answer = await exchange(server, raw);
      expect(answer?.status).toBe(status);
      expect(answer?.headers['content-type']).toBe('application/json');
      expect(JSON.parse(answer!.body)).toEqual({ message: expect.any(String), code, env: 'sandbox' });
    }
  });
});

describe('a client that goes away mid-request', () => {
  it('is no error: nothing is reported as an internal error, and the fake serves on', async () => {
    const onInternalError = vi.fn();
    const server = await start({ onInternalError });
    const connection = await open(server);
    connection.socket.write(post('/v1/features.list', '{"a":"').replace(/content-length: \d+/, 'content-length: 500'));
    await new Promise((r) => setTimeout(r, 50));
    connection.socket.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(onInternalError).not.toHaveBeenCalled();
    expect(await featureExists(server, 'none')).toBe(false);
    expect(onInternalError).not.toHaveBeenCalled();
  });
});

describe('close()', () => {
  it('lets a request in flight finish and be answered, then resolves', async () => {
    const server = await start();
    const connection = await open(server);
    const body = JSON.stringify({ feature_id: 'late', name: 'Late', type: 'boolean' });
    const raw = post('/v1/features.create', body);
    // Headers and half the body now; the rest once close() has been called.
    connection.socket.write(raw.slice(0, -10));
    await new Promise((r) => setTimeout(r, 50));
    const closed = server.close();
    connection.socket.write(raw.slice(-10));
    const [answer] = await connection.answers(1);
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer!.body)).toMatchObject({ id: 'late' });
    await closed;
    expect(await connection.closedWithin(1_000)).toBe(true);
  });

  it('can be called twice: both calls resolve', async () => {
    const server = await start();
    await expect(Promise.all([server.close(), server.close()])).resolves.toBeDefined();
    await expect(server.close()).resolves.toBeUndefined();
  });
});

describe('with a fault that needs web Requests (the slow path)', () => {
  it('serves through fetch, refuses an oversized body the same way, and keeps the path and header checks', async () => {
    const server = await start({ faults: ['AUTH-NO-KEY-CODE'] });
    const connection = await open(server);
    connection.socket.write(post('/v1/features.list', '{}', []));
    const [noKey] = await connection.answers(1);
    expect(JSON.parse(noKey!.body)).toMatchObject({ code: 'unauthorized' });
    connection.socket.write(post('/v1/features.list', `{"a":"${'x'.repeat(BODY_LIMIT)}"}`));
    const answers = await connection.answers(2);
    expect(answers[1]?.status).toBe(413);
    expect(await connection.closedWithin(2_000)).toBe(true);
    expect((await exchange(server, post('/v1/../_fake/reset', '{}')))?.status).toBe(404);
  });
});
