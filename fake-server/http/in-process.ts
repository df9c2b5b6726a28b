/**
 * One request answered by a fake in this process, with no socket: what the node adapter does once
 * it has read a request, minus the parsing and copying of HTTP/1.1. The app's fast path `reply`
 * serves it, or `fetch` while a fault rewrites raw HTTP (web Requests and Responses, their streams
 * and transferables, cost more than the fake's own work: half of an exploration's CPU went to them).
 * The adapter's path normalisation and body limit apply here as there.
 */
import { type BodyText, errorReply, type Reply, tooLarge } from './json.ts';
import { normalPath, type Servable } from './node-adapter.ts';
import type { SocketRequestHead } from './request-head.ts';

export async function answerInProcess(app: Servable, method: string, target: string, headers: Headers, text: string): Promise<Reply> {
  const path = normalPath(target);
  if (path === undefined) return errorReply('route_not_found', `No operation at ${target}`, 'sandbox');
  const body: BodyText = Buffer.byteLength(text) > app.bodyLimit ? tooLarge(app.bodyLimit) : { ok: true, text };
  if (app.reply !== undefined) {
    const head: SocketRequestHead = { method, path, header: (name) => headers.get(name), headers: () => headers };
    return app.reply(head, body);
  }
  if (!body.ok) return errorReply(body.code, body.message, 'sandbox');
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const response = await app.fetch(new Request(`http://fake.invalid${target}`, { method, headers, ...(hasBody && { body: body.text }) }));
  return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
}
