/**
 * The fields of every operation's answer, read off the response schemas of the operation table
 * (spec/), never written by hand: each node of an answer gets a stable key, `<Component>.<path>`,
 * where the component is the nearest schema with a component id (`Balance`, `LicensePool`, `Plan`…)
 * or else the operation's shape rule, and the path uses `[]` for array items and `{}` for map
 * values (`Balance.breakdown[].usage`, `BalancesCheckResult.balances{}`). One resource embedded in
 * several answers (a Balance in a check, an entity, a customer) has one key, so its owning rule is
 * stated once (ownership.ts).
 *
 * Each node also carries its provenance: `reference` when the schema, or an enclosing one within
 * the answer, was filled in from the reference implementation (spec/meta.ts `fromReference`).
 */
import type { z } from 'zod';
import { Timestamp } from '../../spec/common.ts';
import { controlCalls } from '../../spec/control-plane.ts';
import { provenanceOf, type SchemaProvenance } from '../../spec/meta.ts';
import { operations, type OperationName } from '../../spec/operations.ts';

export type FieldKind = 'leaf' | 'object' | 'array' | 'map';

export interface FieldNode {
  readonly key: string;
  readonly kind: FieldKind;
  readonly provenance: SchemaProvenance;
  /** The answer may carry null here. */
  readonly nullable: boolean;
  /** The answer may leave the key out. */
  readonly optional: boolean;
  /** A leaf holding a timestamp (spec/common.ts `Timestamp`). */
  readonly timestamp: boolean;
  /** Object: its keys. */
  readonly fields?: Readonly<Record<string, FieldNode>>;
  /** Array: its items; map: its values. */
  readonly element?: FieldNode;
}

interface ZodDef {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly shape?: Record<string, z.ZodType>;
  readonly element?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly options?: readonly z.ZodType[];
}

const defOf = (schema: z.ZodType): ZodDef => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** The schema under its wrappers (optional, nullable, default, pipes), with what the wrappers allow and every provenance mark met on the way. */
function unwrap(schema: z.ZodType): { inner: z.ZodType; nullable: boolean; optional: boolean; marks: SchemaProvenance[] } {
  let inner = schema;
  let nullable = false;
  let optional = false;
  const marks: SchemaProvenance[] = [provenanceOf(schema)];
  for (;;) {
    const def = defOf(inner);
    if (def.type === 'nullable') nullable = true;
    if (def.type === 'optional' || def.type === 'default' || def.type === 'prefault') optional = true;
    if (WRAPPERS.has(def.type) && def.innerType) inner = def.innerType;
    else if (def.type === 'pipe' && def.in) inner = def.in;
    else return { inner, nullable, optional, marks };
    marks.push(provenanceOf(inner));
  }
}

function componentId(schema: z.ZodType): string | undefined {
  const id = (schema as { meta?: () => Record<string, unknown> | undefined }).meta?.()?.['id'];
  return typeof id === 'string' ? id : undefined;
}

const TIMESTAMP_DESCRIPTION = Timestamp.meta()?.description;

function isTimestamp(schema: z.ZodType): boolean {
  return (schema as { meta?: () => Record<string, unknown> | undefined }).meta?.()?.['description'] === TIMESTAMP_DESCRIPTION;
}

function strongest(marks: readonly SchemaProvenance[]): SchemaProvenance {
  return marks.includes('project') ? 'project' : marks.includes('reference') ? 'reference' : 'documented';
}

/** The objects a union may be, when it is a union of objects (else undefined: a union of scalars is a leaf). */
function objectOptions(def: ZodDef): z.ZodType[] | undefined {
  if (def.type !== 'union' || !def.options) return undefined;
  const inner = def.options.map((option) => unwrap(option).inner);
  return inner.every((option) => defOf(option).type === 'object') ? inner : undefined;
}

function build(schema: z.ZodType, component: string, path: string, inherited: SchemaProvenance): FieldNode {
  const { inner, nullable, optional, marks } = unwrap(schema);
  const id = componentId(inner) ?? componentId(schema);
  // The node is named where it sits (`BalancesCheckResult.balance`); its fields by its own component (`Balance.usage`).
  const key = path === '' ? (id ?? component) : `${component}.${path}`;
  const here = id ?? component;
  const at = id === undefined ? path : '';
  const provenance = strongest([inherited, ...marks]);
  const def = defOf(inner);
  const join = (child: string) => (at === '' ? child : `${at}.${child}`);
  const union = objectOptions(def);
  if (def.type === 'object' || union) {
    const shapes = union ? union.map((option) => defOf(option).shape ?? {}) : [def.shape ?? {}];
    const fields: Record<string, FieldNode> = {};
    for (const shape of shapes) {
      for (const [name, child] of Object.entries(shape)) fields[name] ??= build(child, here, join(name), provenance);
    }
    return { key, kind: 'object', provenance, nullable, optional, timestamp: false, fields };
  }
  if (def.type === 'array' && def.element) return { key, kind: 'array', provenance, nullable, optional, timestamp: false, element: build(def.element, here, `${at}[]`, provenance) };
  if (def.type === 'record' && def.valueType) return { key, kind: 'map', provenance, nullable, optional, timestamp: false, element: build(def.valueType, here, `${at}{}`, provenance) };
  return { key, kind: 'leaf', provenance, nullable, optional, timestamp: isTimestamp(inner) };
}

const shapes = new Map<OperationName, FieldNode>();

/** The field tree of an operation's 200 answer. */
export function answerShape(operation: OperationName): FieldNode {
  let shape = shapes.get(operation);
  if (shape === undefined) {
    const op = operations[operation];
    // A root without a component id is named by the operation's shape rule, which answers of the same shape share.
    shape = build(op.response, op.shapeRule, '', 'documented');
    shapes.set(operation, shape);
  }
  return shape;
}

/** The field tree of a control-plane read the projection compares (the usage events), named after the call. */
export function controlAnswerShape(name: 'events.list'): FieldNode {
  let shape = controlShapes.get(name);
  if (shape === undefined) {
    shape = build(controlCalls[name].response, name, '', 'documented');
    controlShapes.set(name, shape);
  }
  return shape;
}

const controlShapes = new Map<string, FieldNode>();

/** Every node of a tree, depth first. */
export function nodesOf(root: FieldNode): FieldNode[] {
  const out: FieldNode[] = [root];
  for (const child of Object.values(root.fields ?? {})) out.push(...nodesOf(child));
  if (root.element) out.push(...nodesOf(root.element));
  return out;
}

/**
 * The nodes whose value the projection compares, and so must have an owner: leaves, arrays, maps,
 * and objects the answer may leave null or out (their presence is compared). An object that is
 * always there is compared through its fields.
 */
export function comparedNodes(root: FieldNode): FieldNode[] {
  return nodesOf(root).filter((node) => node.kind !== 'object' || node.nullable || node.optional);
}
