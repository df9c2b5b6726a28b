/**
 * Bytes ⇄ JSON for the fake: reading a bounded request body, parsing it (every body the fake reads
 * goes through `parseJsonBody`), and the replies both the socket and the in-process path send.
 */
import type { Env, ErrorCode } from '../../spec/common.ts';
import { ERROR_CODES } from '../../spec/common.ts';

/** An answer as the router builds it: written by the node adapter in one `end()`, or turned into a web Response. */
export interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON text. */
  readonly body: string;
}

export function jsonReply(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return jsonTextReply(status, JSON.stringify(body), headers);
}

/** A reply whose JSON text is made already. */
export function jsonTextReply(status: number, text: string, headers: Record<string, string> = {}): Reply {
  return { status, headers, body: text };
}

/** The error body `{message, code, env}`, with the status the error table gives the code (unless given). */
export function errorReply(code: ErrorCode, message: string, env: Env, headers: Record<string, string> = {}, status: number = ERROR_CODES[code].status): Reply {
  return jsonReply(status, { message, code, env }, headers);
}

export function toResponse(reply: Reply): Response {
  return new Response(reply.body, { status: reply.status, headers: { 'content-type': 'application/json', ...reply.headers } });
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return toResponse(jsonReply(status, body, headers));
}

export function errorResponse(code: ErrorCode, message: string, env: Env, headers: Record<string, string> = {}): Response {
  return toResponse(errorReply(code, message, env, headers));
}

/** A request body read whole, or why it was not. */
export type BodyText = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly code: ErrorCode; readonly message: string };

export type BodyResult = { ok: true; value: unknown } | { ok: false; code: ErrorCode; message: string };

export function tooLarge(limit: number): BodyText & { ok: false } {
  return { ok: false, code: 'payload_too_large', message: `Request body exceeds ${limit} bytes` };
}

/**
 * Deepest nesting of arrays and objects a request body may have. Plans, the deepest documented
 * bodies, nest about 6 levels; the rest is room for metadata. A bound keeps every stored value
 * serialisable: JSON.stringify overflows the stack somewhere past a few thousand levels.
 */
export const MAX_JSON_DEPTH = 64;

/** How deeply arrays and objects nest in a JSON text (0 for a scalar), counted without parsing it. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c /* backslash */) i++;
      else if (char === 0x22 /* " */) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b /* { */ || char === 0x5b /* [ */) deepest = Math.max(deepest, ++depth);
    else if (char === 0x7d /* } */ || char === 0x5d /* ] */) depth--;
  }
  return deepest;
}

/**
 * A request body's text as JSON: blank reads as `{}`, as in the reference; malformed JSON (the
 * reference would read it as `{}`) and nesting deeper than MAX_JSON_DEPTH are refused. Pure, so
 * every way into the fake parses bodies alike.
 */
export function parseJsonBody(text: string): BodyResult {
  if (text.trim() === '') return { ok: true, value: {} };
  // A text can nest no deeper than it is long: most bodies are too short to need the count.
  const depth = text.length > MAX_JSON_DEPTH ? nestingDepth(text) : 0;
  if (depth > MAX_JSON_DEPTH) return { ok: false, code: 'invalid_json', message: `Request body nests ${depth} levels deep; at most ${MAX_JSON_DEPTH} are accepted` };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, code: 'invalid_json', message: `Request body is not valid JSON: ${(error as Error).message}` };
  }
}

/**
 * Reads a web Request's body as text, refusing more than `limit` bytes without buffering them. A body
 * that stops arriving (the client went away) is refused too: nobody is left to read the answer.
 */
export async function readBodyText(request: Request, limit: number): Promise<BodyText> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) return tooLarge(limit);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    if (request.body !== null) {
      // A reader read to its end and never released: releasing it (as `for await` does) makes Node
      // format the stack of its "Reader released" error, and a host's stack-trace hook may throw there
      // (vitest 4.1's module runner with its module cache, in a global setup that starts the fake).
      const reader = request.body.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        size += read.value.byteLength;
        if (size > limit) {
          void reader.cancel().catch(() => undefined);
          return tooLarge(limit);
        }
        chunks.push(read.value);
      }
    }
  } catch {
    return { ok: false, code: 'invalid_request', message: 'The request body could not be read' };
  }
  return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
}

/** Reads a web Request's body as JSON (see `readBodyText` and `parseJsonBody`). */
export async function readJsonBody(request: Request, limit: number): Promise<BodyResult> {
  const body = await readBodyText(request, limit);
  return body.ok ? parseJsonBody(body.text) : body;
}
