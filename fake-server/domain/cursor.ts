/**
 * Opaque page cursors: base64url JSON of the position a page stopped at, `{v, t, id}` (created_at and
 * id of the last row the page looked at). A cursor names a position, not a row, so it stays valid
 * when rows are added or deleted meanwhile.
 */
import { z } from 'zod';
import type { IndexKey } from '../store/ordered-index.ts';
import { fail } from './context.ts';

const CursorPayload = z.object({ v: z.literal(1), t: z.int().nonnegative(), id: z.string().min(1) });

export function encodeCursor(key: IndexKey): string {
  return Buffer.from(JSON.stringify({ v: 1, t: key.t, id: key.id })).toString('base64url');
}

/** The position a `start_cursor` names; undefined for the first page (""). Anything else is 400 `invalid_cursor`. */
export function decodeCursor(cursor: string): IndexKey | undefined {
  if (cursor === '') return undefined;
  let payload: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    fail('invalid_cursor', 'cursor payload is not valid JSON');
  }
  const parsed = CursorPayload.safeParse(payload);
  if (!parsed.success) fail('invalid_cursor', 'cursor shape mismatch: not a cursor of this service');
  return { t: parsed.data.t, id: parsed.data.id };
}
