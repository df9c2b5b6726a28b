/**
 * Loads the recorded reference exchanges copied into fixtures/reference-exchanges/ and checks each
 * request and response against the spec's schemas.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ErrorBody } from '../common.ts';
import { operations, type OperationName } from '../operations.ts';

export const EXCHANGES_DIR = new URL('../../fixtures/reference-exchanges/', import.meta.url);

export const RecordedExchange = z.object({
  operation: z.string(),
  case: z.string(),
  request: z.object({
    method: z.string(),
    path: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.unknown(),
  }),
  response: z.object({ status: z.int(), headers: z.record(z.string(), z.string()), body: z.unknown() }),
});
export type RecordedExchange = z.infer<typeof RecordedExchange> & { file: string };

export function loadExchanges(): RecordedExchange[] {
  const dir = EXCHANGES_DIR.pathname;
  return readdirSync(dir)
    .filter((file) => /^\d{3}-.*\.json$/.test(file))
    .sort()
    .map((file) => ({ ...RecordedExchange.parse(JSON.parse(readFileSync(join(dir, file), 'utf8'))), file }));
}

/** One way a recorded exchange disagrees with the spec's schemas. */
export interface SchemaMismatch {
  readonly file: string;
  readonly direction: 'request' | 'response';
  /** Dotted path, array indices written as `*`. */
  readonly path: string;
  readonly message: string;
}

function issuePath(path: readonly PropertyKey[]): string {
  return path.map((key) => (typeof key === 'number' ? '*' : String(key))).join('.');
}

function mismatches(file: string, direction: SchemaMismatch['direction'], schema: z.ZodType, body: unknown): SchemaMismatch[] {
  const result = schema.safeParse(body);
  if (result.success) return [];
  return result.error.issues.map((issue) => ({ file, direction, path: issuePath(issue.path), message: issue.message }));
}

function isKnownOperation(name: string): name is OperationName {
  return Object.hasOwn(operations, name);
}

/**
 * Checks one exchange: a 200 response against the operation's response schema, an error response
 * against the error body; a request the reference accepted (200) must pass the request schema, and
 * a request it refused as invalid input (400 `invalid_inputs`) must fail it.
 */
export function checkExchange(exchange: RecordedExchange): SchemaMismatch[] {
  const { file, request, response } = exchange;
  const found: SchemaMismatch[] = [];
  if (response.status >= 400) found.push(...mismatches(file, 'response', ErrorBody, response.body));
  if (!isKnownOperation(exchange.operation)) return found;
  const op = operations[exchange.operation];
  if (response.status === 200) {
    found.push(...mismatches(file, 'response', op.response, response.body));
    // A JSON string body is how the recording shows raw bytes (malformed JSON, other content types).
    const requestBody = typeof request.body === 'string' ? safeJson(request.body) : (request.body ?? {});
    found.push(...mismatches(file, 'request', op.request, requestBody));
  }
  const errorCode = (response.body as { code?: unknown } | null)?.code;
  if (response.status === 400 && errorCode === 'invalid_inputs' && typeof request.body === 'object') {
    if (op.request.safeParse(request.body ?? {}).success) {
      found.push({ file, direction: 'request', path: '', message: 'the reference refused this body as invalid, the spec accepts it' });
    }
  }
  return found;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
