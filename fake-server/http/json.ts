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
  return { status, headers, body: JSON.stringify(body) };
}

/** The error body `{message, code, env}`, with the status the error table gives the code. */
export function errorReply(code: ErrorCode, message: string, env: Env, headers: Record<string, string> = {}): Reply {
  return jsonReply(ERROR_CODES[code].status, { message, code, env }, headers);
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
 * Parses a request body. An empty body reads as `{}`, as in the reference; malformed JSON is refused
 * (the reference would read it as `{}`).
 */
export function parseJsonBody(text: string): BodyResult {
  if (text.trim() === '') return { ok: true, value: {} };
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
      for await (const chunk of request.body) {
        size += chunk.byteLength;
        if (size > limit) return tooLarge(limit);
        chunks.push(chunk);
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
