/**
 * Serves the fake on a node:http server. Each request body is read into one buffer (refused past the
 * limit), then the app's `reply` routes it and the answer goes out as a bare node:http server sends
 * one: a single `writeHead` with `content-length` and a single `end()`. While a fault needs web
 * Requests (`reply` is undefined), the same buffered body is handed to `fetch` instead.
 *
 * The socket is where hostile clients meet the fake, so the edge cases live here: a path that is not
 * in normal form names no route (`/v1/../_fake/reset` never reaches the control plane), duplicate
 * Authorization headers are refused, an oversized body is answered and its connection closed instead
 * of left stalled, a client that goes away is no error, node's own refusals (431, 400, 408) carry the
 * `{message, code, env}` body, and `close()` lets answers in flight finish.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ErrorCode } from '../../spec/common.ts';
import { type BodyText, errorReply, type Reply, tooLarge } from './json.ts';
import type { SocketRequestHead } from './request-head.ts';

/** What the adapter serves: a FakeApp, or anything shaped like one. */
export interface Servable {
  readonly fetch: (request: Request) => Promise<Response>;
  readonly reply: ((head: SocketRequestHead, body: BodyText) => Reply | Promise<Reply>) | undefined;
  readonly bodyLimit: number;
}

export interface ServedHandler {
  readonly url: string;
  readonly server: Server;
  /** Stops accepting connections, lets requests in flight be answered, then resolves; calling it again returns the same promise. */
  readonly close: () => Promise<void>;
}

/** How long `close()` waits for requests in flight before it cuts their connections. */
const CLOSE_GRACE_MS = 5_000;

/**
 * The path of a request target, or undefined when it is not in normal form: dot segments (plain or
 * percent-encoded), backslashes, a leading `//` or a target that is not a path. Normalised, such a
 * path could name another route than the one it was sent to, so it names none.
 */
export function normalPath(target: string): string | undefined {
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  if (!path.startsWith('/') || path.startsWith('//') || path.includes('\\')) return undefined;
  if (/(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i.test(path)) return undefined;
  return path;
}

/** How many Authorization headers the request carried (node keeps only the first in `headers`). */
function authorizationCount(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'authorization') count++;
  return count;
}

function webHeaders(incoming: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i < incoming.rawHeaders.length; i += 2) headers.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
  return headers;
}

function headOf(incoming: IncomingMessage, path: string): SocketRequestHead {
  return {
    method: incoming.method ?? 'GET',
    path,
    header: (name) => {
      const value = incoming.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
    headers: () => webHeaders(incoming),
  };
}

/**
 * Reads the body into one buffer and calls `done` once with it, or as soon as it is over `limit`
 * (by its declared length, before reading any of it, or as it arrives). A client that goes away
 * mid-body gets no call at all: nobody is left to answer.
 */
function readBody(incoming: IncomingMessage, limit: number, done: (body: BodyText) => void): void {
  if (Number(incoming.headers['content-length']) > limit) return done(tooLarge(limit));
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  incoming.on('data', (chunk: Buffer) => {
    if (finished) return;
    size += chunk.length;
    if (size > limit) {
      finished = true;
      chunks.length = 0;
      done(tooLarge(limit));
    } else chunks.push(chunk);
  });
  incoming.on('end', () => {
    if (finished) return;
    finished = true;
    done({ ok: true, text: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8') });
  });
  incoming.on('error', () => {
    finished = true;
  });
}

/** Writes a reply in one go. `close` ends the connection after it (the request body was left unread, or the server is closing). */
function write(outgoing: ServerResponse, reply: Reply, close: boolean): void {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...reply.headers, 'content-length': String(Buffer.byteLength(reply.body)) };
  if (close) headers['connection'] = 'close';
  outgoing.writeHead(reply.status, headers);
  outgoing.end(reply.body);
}

/** A refusal node makes before any request exists, as raw HTTP with the documented error body. */
function clientErrorAnswer(error: NodeJS.ErrnoException): string {
  const [code, message]: [ErrorCode, string] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? ['request_header_fields_too_large', 'The request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['request_timeout', 'The request did not arrive in time']
        : ['invalid_request', `Malformed HTTP request (${error.code ?? 'unknown'})`];
  const reply = errorReply(code, message, 'sandbox');
  const length = Buffer.byteLength(reply.body);
  return `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status]}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\nconnection: close\r\n\r\n${reply.body}`;
}

export async function serve(app: Servable, options: { port?: number; host?: string } = {}): Promise<ServedHandler> {
  const host = options.host ?? '127.0.0.1';
  let closing = false;

  function answer(outgoing: ServerResponse, reply: Reply | Promise<Reply>, close: boolean): void {
    if (reply instanceof Promise) void reply.then((settled) => write(outgoing, settled, close || closing));
    else write(outgoing, reply, close || closing);
  }

  /** The slow path: the buffered body handed to `fetch` as a web Request, the Response read back whole. */
  async function viaFetch(incoming: IncomingMessage, path: string, body: BodyText & { ok: true }): Promise<Reply> {
    const method = incoming.method ?? 'GET';
    const hasBody = method !== 'GET' && method !== 'HEAD';
    let request: Request;
    try {
      request = new Request(`http://${host}${path}${incoming.url!.slice(path.length)}`, { method, headers: webHeaders(incoming), ...(hasBody && { body: body.text }) });
    } catch {
      return errorReply('invalid_request', 'Malformed request', 'sandbox');
    }
    const response = await app.fetch(request);
    return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
  }

  const server = createServer((incoming, outgoing) => {
    const path = normalPath(incoming.url ?? '');
    if (path === undefined) return answer(outgoing, errorReply('route_not_found', `No operation at ${incoming.url}`, 'sandbox'), true);
    const authorizations = authorizationCount(incoming.rawHeaders);
    if (authorizations > 1) return answer(outgoing, errorReply('invalid_request', `Send one Authorization header, not ${authorizations}`, 'sandbox'), true);
    readBody(incoming, app.bodyLimit, (body) => {
      // An oversized body is left unread: the connection cannot carry another request after it.
      const close = !body.ok;
      if (app.reply !== undefined) return answer(outgoing, app.reply(headOf(incoming, path), body), close);
      answer(outgoing, body.ok ? viaFetch(incoming, path, body) : errorReply(body.code, body.message, 'sandbox'), close);
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // An answer still being written on this socket (node's own `_httpMessage`) must not be interleaved with ours.
    const answering = (socket as Socket & { _httpMessage?: unknown })._httpMessage != null;
    if (error.code === 'ECONNRESET' || !socket.writable || answering) socket.destroy();
    else socket.end(clientErrorAnswer(error));
  });
  // Keep-alive sockets would otherwise hold close() open until they time out.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    server,
    close: () =>
      (closed ??= new Promise<void>((resolve, reject) => {
        closing = true;
        const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        server.close((error) => {
          clearTimeout(cut);
          if (error) reject(error);
          else resolve();
        });
        server.closeIdleConnections();
      })),
  };
}
