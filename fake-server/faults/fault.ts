/**
 * A fault breaks one rule of the catalogue on purpose, so the suite can prove it notices. Faults
 * stay out of the domain code: each is a small override at one of these hook points, registered by
 * rule ID in faults/index.ts and chosen when the fake starts.
 */
import type { OperationName } from '../../spec/operations.ts';
import type { RuleId } from '../../spec/rules/catalogue.ts';
import type { OperationHandler, OutputOf } from '../domain/context.ts';

export type HandlerOverrides = { readonly [N in OperationName]?: (real: OperationHandler<N>) => OperationHandler<N> };

export interface Fault {
  /** The rule this fault breaks. */
  readonly rule: RuleId;
  /** What the broken fake does instead, in one sentence. */
  readonly breaks: string;
  /** Rewrites the incoming HTTP request before anything looks at it (auth, version, routing faults); `fake.firstKey` is the first key the fake was started with. */
  readonly request?: (request: Request, fake: { readonly firstKey: string }) => Request;
  /** Rewrites a parsed JSON body before validation (bounds and enum faults). */
  readonly input?: (operation: OperationName, body: unknown) => unknown;
  /** Replaces domain functions, usually by wrapping the real one. */
  readonly handlers?: HandlerOverrides;
  /** Rewrites a successful response body before it is sent (shape faults). */
  readonly output?: (operation: OperationName, body: unknown) => unknown;
  /** Rewrites any /v1 HTTP response, errors included, before it is sent (status and error-body faults). */
  readonly response?: (response: Response, request: Request) => Response | Promise<Response>;
}

/** An `output` hook that rewrites the successful answers of one operation and leaves the others alone. */
export function rewriteOutput<N extends OperationName>(name: N, rewrite: (body: OutputOf<N>) => unknown): NonNullable<Fault['output']> {
  return (operation, body) => (operation === name ? rewrite(body as OutputOf<N>) : body);
}

/**
 * `handlers` for a delete that answers success but keeps what it names; `find` still answers an
 * unknown ID as the real delete does (404), so only the keeping differs.
 */
export function deleteThatKeeps<N extends OperationName>(name: N, find: (ctx: Parameters<OperationHandler<N>>[0], input: Parameters<OperationHandler<N>>[1]) => unknown): HandlerOverrides {
  const keeps: (real: OperationHandler<N>) => OperationHandler<N> = () => (ctx, input) => {
    find(ctx, input);
    return { success: true } as OutputOf<N>;
  };
  return { [name]: keeps } as HandlerOverrides;
}
