/**
 * Provenance metadata. Every shape or field the fake or the suite takes from the reference
 * implementation (rather than from interface.md) says so, and names where it was observed.
 * The metadata travels into the OpenAPI export as `x-provenance` / `x-source`.
 */
import type { z } from 'zod';

export type Provenance = 'documented' | 'reference';

/** Where a reference fact comes from: an exchange file, a section of the observed-behaviour notes, or the public OpenAPI. */
export type ReferenceSource =
  | `exchanges/${string}`
  | `observed-behaviour §${string}`
  | `openapi-2.3.0 ${string}`
  | `autumn-js ${string}`;

/** Marks a schema as filled in from the reference, for a gap interface.md leaves ("not shown") or a setup shape. */
export function fromReference<T extends z.ZodType>(schema: T, ...sources: [ReferenceSource, ...ReferenceSource[]]): T {
  return schema.meta({ ...schema.meta(), 'x-provenance': 'reference', 'x-source': sources.join('; ') }) as T;
}

/** Reads the provenance recorded on a schema (documented unless marked otherwise). */
export function provenanceOf(schema: z.ZodType): Provenance {
  return schema.meta()?.['x-provenance'] === 'reference' ? 'reference' : 'documented';
}
