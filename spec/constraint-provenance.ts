/**
 * Where the constraint on one field of a request comes from, read off the OpenAPI export's
 * `x-provenance` marks: `documented` unless the field, or a schema it sits in, was filled in from
 * the reference (or chosen by the project). The suite counts a refused bound or enumeration against
 * the document only when it is documented; the rest is a reference behaviour (SHOULD).
 */
import type { OperationName } from './operations.ts';
import { buildOpenApiDocument } from './openapi.ts';

type Node = Readonly<Record<string, unknown>>;
type Provenance = 'documented' | 'reference' | 'project';

interface OpenApiDocument {
  readonly paths: Record<string, { readonly post: { readonly requestBody: { readonly content: { readonly 'application/json': { readonly schema: Node } } } } }>;
  readonly components: { readonly schemas: Record<string, Node> };
}

let exported: OpenApiDocument | undefined;

const isObject = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The provenance of the constraint on the value at `path` (object keys and array indices) of `operation`'s request body. */
export function constraintProvenance(operation: OperationName, path: readonly (string | number)[]): Provenance {
  exported ??= buildOpenApiDocument() as unknown as OpenApiDocument;
  const doc = exported;
  const deref = (node: unknown): Node | undefined => {
    if (!isObject(node)) return undefined;
    const ref = node['$ref'];
    return typeof ref === 'string' ? { ...doc.components.schemas[ref.slice('#/components/schemas/'.length)], ...node } : node;
  };
  const branchesOf = (node: Node): Node[] => [
    node,
    ...(((node['anyOf'] ?? node['oneOf'] ?? node['allOf']) as unknown[] | undefined) ?? []).flatMap((branch): Node[] => {
      const inner = deref(branch);
      return inner === undefined ? [] : [inner];
    }),
  ];
  let found: Provenance = 'documented';
  const note = (node: Node) => {
    const marked = node['x-provenance'];
    if (marked === 'reference' || marked === 'project') found = marked;
  };
  const root = doc.paths[`/v1/${operation}`]?.post.requestBody.content['application/json'].schema;
  let nodes = root === undefined ? [] : [deref(root)!];
  for (const segment of path) {
    nodes = nodes.flatMap(branchesOf).flatMap((branch): Node[] => {
      note(branch);
      const next = deref(typeof segment === 'number' ? branch['items'] : (branch['properties'] as Node | undefined)?.[segment]);
      return next === undefined ? [] : [next];
    });
  }
  nodes.flatMap(branchesOf).forEach(note);
  return found;
}
