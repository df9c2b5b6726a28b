/**
 * An undici dispatcher that hands each request straight to a fake app, with no socket: the suite's
 * transport (timeouts, body cap, retries, evidence) runs unchanged, and the app answers exactly as
 * its node adapter would (the same fast path `reply`, or `fetch` while a fault rewrites raw HTTP),
 * minus the parsing and copying of HTTP/1.1 on both sides. The meta-tests start a fresh fake for
 * every fault, hundreds of thousands of requests in all, and most of their time went to the
 * loopback sockets (docs/contributing.md).
 *
 * What only a socket can do (an oversized body left unread, a malformed request line, a second
 * Authorization header) is the node adapter's, tested in fake-server/http and suites/hostile; the
 * adapter's path normalisation and body limit are applied here as there.
 */
import { STATUS_CODES } from 'node:http';
import { Dispatcher } from 'undici';
import { answerInProcess } from '../../fake-server/http/in-process.ts';
import type { Reply } from '../../fake-server/http/json.ts';
import type { Servable } from '../../fake-server/http/node-adapter.ts';

/** The request headers undici was given, as a web Headers (undici takes a record or a flat array). */
function headersOf(given: Dispatcher.DispatchOptions['headers']): Headers {
  const headers = new Headers();
  if (Array.isArray(given)) {
    for (let i = 0; i + 1 < given.length; i += 2) headers.append(String(given[i]), String(given[i + 1]));
  } else if (given !== null && given !== undefined && typeof given === 'object') {
    for (const [name, value] of Object.entries(given as Record<string, string | string[] | undefined>)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
    }
  }
  return headers;
}

function bodyOf(body: Dispatcher.DispatchOptions['body']): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  throw new Error('the in-process fake takes string or buffer bodies only');
}

export class InProcessDispatcher extends Dispatcher {
  readonly #app: Servable;

  constructor(app: Servable) {
    super();
    this.#app = app;
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      handler.onError?.(error);
    };
    handler.onConnect?.((reason) => fail(reason ?? new Error('aborted')));
    this.#answer(options).then((reply) => {
      if (settled) return;
      settled = true;
      const headers = { 'content-type': 'application/json', ...reply.headers, 'content-length': String(Buffer.byteLength(reply.body)) };
      const raw = Object.entries(headers).flatMap(([name, value]) => [Buffer.from(name), Buffer.from(value)]);
      handler.onHeaders?.(reply.status, raw, () => {}, STATUS_CODES[reply.status] ?? '');
      if (reply.body !== '') handler.onData?.(Buffer.from(reply.body));
      handler.onComplete?.([]);
    }, (error: unknown) => fail(error instanceof Error ? error : new Error(String(error))));
    return true;
  }

  // Async: a body it cannot take (bodyOf throws) fails the request, not dispatch().
  async #answer(options: Dispatcher.DispatchOptions): Promise<Reply> {
    return answerInProcess(this.#app, options.method, options.path, headersOf(options.headers), bodyOf(options.body));
  }

  override async close(): Promise<void> {}

  override async destroy(): Promise<void> {}
}
