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

/**
 * Reads the body as JSON, refusing more than `limit` bytes without buffering them. An empty body
 * reads as `{}`, as in the reference; malformed JSON is refused (the reference would read it as `{}`).
 */
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
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, code: 'invalid_json', message: `Request body is not valid JSON: ${(error as Error).message}` };
  }
}
