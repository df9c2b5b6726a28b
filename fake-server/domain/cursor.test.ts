import { describe, expect, it } from 'vitest';
import { DomainError } from './context.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';

describe('page cursors', () => {
  it('round-trip a position and read "" as the first page', () => {
    const key = { t: 1_795_328_344_541, id: 'cus_prod_abc' };
    expect(decodeCursor(encodeCursor(key))).toEqual(key);
    expect(decodeCursor('')).toBeUndefined();
  });

  it.each([
    ['not base64url at all', 'not a cursor!'],
    ['base64url of text that is not JSON', Buffer.from('hello').toString('base64url')],
    ['JSON of another shape', Buffer.from(JSON.stringify({ v: 0, id: 'x', t: 1 })).toString('base64url')],
  ])('refuse %s with invalid_cursor', (_case, cursor) => {
    expect(() => decodeCursor(cursor)).toThrowError(DomainError);
    try {
      decodeCursor(cursor);
    } catch (error) {
      expect((error as DomainError).code).toBe('invalid_cursor');
    }
  });
});
