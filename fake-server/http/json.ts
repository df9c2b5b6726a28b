/** Bytes ⇄ JSON for the fake: reading a bounded request body, and writing JSON and error responses. */
import type { Env, ErrorCode } from '../../spec/common.ts';
import { ERROR_CODES } from '../../spec/common.ts';

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** The error body `{message, code, env}`, with the status the error table gives the code. */
export function errorResponse(code: ErrorCode, message: string, env: Env, headers: Record<string, string> = {}): Response {
  return jsonResponse(ERROR_CODES[code].status, { message, code, env }, headers);
}

export type BodyResult = { ok: true; value: unknown } | { ok: false; code: ErrorCode; message: string };

/** Reads the body as JSON (see parseJsonBody), refusing more than `limit` bytes without buffering them. */
export async function readJsonBody(request: Request, limit: number): Promise<BodyResult> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) return { ok: false, code: 'payload_too_large', message: `Request body exceeds ${limit} bytes` };
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    for await (const chunk of request.body) {
      size += chunk.byteLength;
      if (size > limit) return { ok: false, code: 'payload_too_large', message: `Request body exceeds ${limit} bytes` };
      chunks.push(chunk);
    }
  }
  return parseJsonBody(Buffer.concat(chunks).toString('utf8'));
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
  const depth = nestingDepth(text);
  if (depth > MAX_JSON_DEPTH) return { ok: false, code: 'invalid_json', message: `Request body nests ${depth} levels deep; at most ${MAX_JSON_DEPTH} are accepted` };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, code: 'invalid_json', message: `Request body is not valid JSON: ${(error as Error).message}` };
  }
}
