/**
 * Provenance metadata. Every shape or field the fake or the suite takes from the reference
 * implementation (rather than from interface.md) says so, and names where it was observed.
 * The metadata travels into the OpenAPI export as `x-provenance` / `x-source`.
 */
import { z } from 'zod';

export type Provenance = 'documented' | 'reference';

/** Schema provenance also knows `project`: a name neither the document nor the reference gives, chosen here. */
export type SchemaProvenance = Provenance | 'project';

/** Where a reference fact comes from: an exchange file, a section of the observed-behaviour notes, or the public OpenAPI. */
export type ReferenceSource =
  | `exchanges/${string}`
  | `observed-behaviour §${string}`
  | `openapi-2.3.0 ${string}`
  | `autumn-js ${string}`;

/**
 * The marked copy replaces the original, so a component id must not stay registered twice. Other
 * metadata stays: a shared schema marked in one place keeps its own elsewhere.
 */
function forgetComponentId(schema: z.ZodType): void {
  if (schema.meta()?.id !== undefined) z.globalRegistry.remove(schema);
}

/** Marks a schema as filled in from the reference, for a gap interface.md leaves ("not shown") or a setup shape. */
export function fromReference<T extends z.ZodType>(schema: T, ...sources: [ReferenceSource, ...ReferenceSource[]]): T {
  const marked = schema.meta({ ...schema.meta(), 'x-provenance': 'reference', 'x-source': sources.join('; ') }) as T;
  forgetComponentId(schema);
  return marked;
}

/** Marks a wire name this project had to choose because neither interface.md nor the reference shows one. */
export function projectChoice<T extends z.ZodType>(schema: T, why: string): T {
  const marked = schema.meta({ ...schema.meta(), 'x-provenance': 'project', 'x-source': why }) as T;
  forgetComponentId(schema);
  return marked;
}

/** Reads the provenance recorded on a schema (documented unless marked otherwise). */
export function provenanceOf(schema: z.ZodType): SchemaProvenance {
  const marked = schema.meta()?.['x-provenance'];
  return marked === 'reference' || marked === 'project' ? marked : 'documented';
}
