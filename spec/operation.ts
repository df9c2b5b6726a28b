/**
 * One entry of the operation table: everything the fake's router and the suite's client need to
 * speak one `POST /v1/<resource>.<action>` call. Nobody writes a path or a shape twice.
 */
import type { z } from 'zod';
import type { Provenance } from './meta.ts';
import type { Part } from './part.ts';

export interface OperationDef<
  Name extends string = string,
  Req extends z.ZodType = z.ZodType,
  Res extends z.ZodType = z.ZodType,
> {
  /** `<resource>.<action>`, as in the path. */
  readonly name: Name;
  readonly path: `/v1/${Name}`;
  readonly part: Part;
  /** `documented`: one of the operations of interface.md. `reference`: a setup endpoint shaped as in the reference. */
  readonly provenance: Provenance;
  readonly summary: string;
  readonly request: Req;
  readonly response: Res;
  /**
   * Whether a call changes data: false for reads, or decided by the body for an operation that does
   * both (a balance check with `send_event` records usage). A read-only conformance profile runs only
   * scenarios whose calls all mutate nothing.
   */
  readonly mutates: boolean | ((body: z.input<Req>) => boolean);
  /**
   * The rule a 200 response's wire-schema check proves (the operation's response-shape rule). The
   * other rules of an operation are the catalogue's rules that name it; they are not restated here.
   */
  readonly shapeRule: string;
  /**
   * Response keys the document spells differently from the snake_case wire (decision 2 of DESIGN.md):
   * wire key → documented spelling. The suite accepts either and records which one it saw.
   */
  readonly documentedSpellings?: Readonly<Record<string, string>>;
}

/** Whether this call of the operation changes data; a body that cannot be read counts as changing. */
export function callMutates(op: Pick<OperationDef, 'mutates'>, body: unknown): boolean {
  if (typeof op.mutates === 'boolean') return op.mutates;
  try {
    return op.mutates(body);
  } catch {
    return true;
  }
}

export function defineOperation<Name extends string, Req extends z.ZodType, Res extends z.ZodType>(
  def: Omit<OperationDef<Name, Req, Res>, 'path'>,
): OperationDef<Name, Req, Res> {
  return { ...def, path: `/v1/${def.name}` };
}
