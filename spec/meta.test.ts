import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromReference, provenanceOf } from './meta.ts';

describe('provenance metadata', () => {
  it('marks a schema as taken from the reference and keeps its other metadata', () => {
    const marked = fromReference(z.string().meta({ description: 'cursor' }), 'exchanges/061-entities.list-bad-cursor.json');
    expect(provenanceOf(marked)).toBe('reference');
    expect(marked.meta()).toMatchObject({ description: 'cursor', 'x-source': 'exchanges/061-entities.list-bad-cursor.json' });
  });

  it('treats an unmarked schema as documented', () => {
    expect(provenanceOf(z.string())).toBe('documented');
  });
});
