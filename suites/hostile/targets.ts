/**
 * Hostile targets: small HTTP servers on loopback that misbehave the ways real deployments do (or a
 * wrong BASE_URL does), for the tests that point the whole suite at them. Each answers every path
 * the same way, the control plane's included.
 */
import type { ServerResponse } from 'node:http';
import { request } from 'undici';
import { createFakeServer } from '../../fake-server/index.ts';
import { json, startServer, type SeenRequest, type TestServer } from '../framework/testing.ts';

export const HUGE_BODY_BYTES = 50 * 1024 * 1024;

export type HostileBehaviour =
  | 'never-answers'
  | 'answers-500'
  | 'non-json'
  | 'huge-body'
  | 'endless-body'
  | 'rate-limited-forever'
  | 'slow'
  | 'refuses-everything'
  | 'refuses-the-key';

const error = (message: string, code: string) => ({ message, code, env: 'sandbox' });

/** Writes `chunk` until the client goes away (or, with `total`, until that many bytes are out). */
function stream(res: ServerResponse, chunk: Buffer, total?: number): void {
  let sent = 0;
  const pump = () => {
    while (!res.destroyed && (total === undefined || sent < total)) {
      const piece = total === undefined ? chunk : chunk.subarray(0, Math.min(chunk.length, total - sent));
      sent += piece.length;
      if (!res.write(piece)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  res.on('close', () => res.removeAllListeners('drain'));
  pump();
}

const handlers: Record<HostileBehaviour, (req: SeenRequest, res: ServerResponse) => void> = {
  'never-answers': () => {},
  'answers-500': (_req, res) => json(res, 500, error('Internal server error', 'internal_error')),
  'non-json': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body><h1>Welcome to nginx!</h1></body></html>');
  },
  'huge-body': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(HUGE_BODY_BYTES) });
    stream(res, Buffer.alloc(64 * 1024, ' '), HUGE_BODY_BYTES);
  },
  'endless-body': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"list":[');
    stream(res, Buffer.from('{"id":"x"},'.repeat(4096)));
  },
  // Answers, but only after a second: never a network failure, so only the run's deadline ends the run.
  'slow': (_req, res) => void setTimeout(() => json(res, 404, error('Not found', 'not_found')), 1_000),
  'rate-limited-forever': (_req, res) => json(res, 429, error('Too many requests', 'rate_limit_exceeded'), { 'retry-after': '3600' }),
  'refuses-the-key': (_req, res) => json(res, 401, error('Invalid secret key', 'invalid_secret_key')),
  // 401 to requests without a body, 400 to the rest, each with a well-formed error body.
  'refuses-everything': (req, res) => {
    if (req.body === '' || req.body === '{}') json(res, 401, error('Invalid secret key', 'invalid_secret_key'));
    else json(res, 400, error('Invalid request', 'invalid_inputs'));
  },
};

/** Preflight's read (suites/framework/preflight.ts): the listing of a customer no one created. */
const isPreflight = (req: SeenRequest) => req.url === '/v1/licenses.list' && req.body.includes('conf_preflight_probe');

/**
 * `afterPreflight`: the target answers preflight's read as a healthy target does (404
 * customer_not_found) and misbehaves on everything else, as a target that fails once the run has
 * started; so the run itself, not preflight, has to cope.
 */
export function startHostileTarget(behaviour: HostileBehaviour, options: { readonly afterPreflight?: boolean } = {}): Promise<TestServer> {
  const handler = handlers[behaviour];
  if (!options.afterPreflight) return startServer(handler);
  return startServer((req, res) => (isPreflight(req) ? json(res, 404, error('Customer not found', 'customer_not_found')) : handler(req, res)));
}

/**
 * How an echoing target repeats the Authorization header it got: whole, or without its last
 * character (the issue found 55 of a key's 56 characters in the reports) after padding, so that the
 * suite's 200- and 300-character previews of the body cut it again in the middle.
 */
export type Echo = 'whole' | 'cut';

function echoOf(req: SeenRequest, echo: Echo): string {
  const authorization = String(req.headers.authorization ?? '(none)');
  return echo === 'whole' ? `you sent Authorization: ${authorization}` : `${'.'.repeat(150)} your key ${authorization.replace(/^Bearer /, '').slice(0, -1)}`;
}

/**
 * A working implementation (the fake, knowing both keys) that echoes the caller's Authorization
 * header: in a header of every answer and in every error message. So that the suite fails and quotes
 * what it got, requests without the run's key get a 200 carrying the echo (the suite's auth and
 * tenant-isolation scenarios send the other key, unknown keys and none), and `features.list` is
 * refused with the echo.
 */
export async function startEchoingTarget(keys: { readonly apiKey: string; readonly otherTenantApiKey: string }, echo: Echo): Promise<TestServer> {
  const fake = await createFakeServer({
    keys: [
      { key: keys.apiKey, org: 'org_echo' },
      { key: keys.otherTenantApiKey, org: 'org_echo' },
    ],
  });
  const server = await startServer(async (req, res) => {
    const echoed = echoOf(req, echo);
    if (req.headers.authorization !== `Bearer ${keys.apiKey}`) return json(res, 200, { message: echoed }, { 'x-echo-authorization': echoed });
    if (req.url === '/v1/features.list') return json(res, 400, error(echoed, 'invalid_request'), { 'x-echo-authorization': echoed });
    const forwarded = await request(fake.url + req.url, {
      method: req.method as 'POST',
      headers: Object.fromEntries(['authorization', 'x-api-version', 'content-type'].flatMap((h) => (req.headers[h] === undefined ? [] : [[h, String(req.headers[h])]]))),
      body: req.body === '' ? undefined : req.body,
    });
    const text = await forwarded.body.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: passed on as it came
    }
    if (forwarded.statusCode !== 200 && body !== null && typeof body === 'object' && 'message' in body) body = { ...body, message: `${String(body.message)} ${echoed}` };
    json(res, forwarded.statusCode, body, { 'x-echo-authorization': echoed });
  });
  return { ...server, close: async () => void (await Promise.all([server.close(), fake.close()])) };
}
