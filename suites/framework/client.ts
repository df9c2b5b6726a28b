/**
 * The suite's typed client, built from an operation table. `call` sends `POST /v1/<name>` and
 * checks the answer against the spec, recording and never throwing: a 200 body is checked against
 * the operation's response schema, and a mismatch goes into the exchange (`shapeRule`,
 * `schemaIssues`), where the scenario's verdicts find it as a FAIL of that shape rule; the call
 * still succeeds with the raw body (documented spellings renamed), so the scenario carries on with
 * whatever fields are there; a 200 that is not JSON at all throws TargetFault (an unparseable
 * answer is ERROR, never FAIL). An error body is checked against the error-body schema the same way
 * (`errorBodyIssues`). `raw` sends anything, for negative tests.
 */
import { z } from 'zod';
import { callMutates, type OperationDef } from '../../spec/operation.ts';
import { TargetFault } from './checks.ts';
import type { Exchange, Issue, Spelling } from './evidence.ts';
import { mergeHeaders, Transport, type ExchangeAnnotations, type HeaderOverrides, type HttpResponse, type TransportOptions, type TransportScope } from './http.ts';
import type { RetryPolicy } from './retry.ts';
import type { Dispatcher } from 'undici';

export type OperationTable = Readonly<Record<string, OperationDef>>;

export interface ClientOptions<Ops extends OperationTable, E extends z.ZodType> extends TransportOptions {
  readonly operations: Ops;
  /** Schema of an error response's body (`{message, code, env}`). */
  readonly errorBody: E;
}

export interface RequestOptions {
  readonly headers?: HeaderOverrides;
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryPolicy> | false;
  readonly signal?: AbortSignal;
  /** Another connection than the shared pool's, and whether the request goes pipelined on it (http.ts HttpRequest). */
  readonly dispatcher?: Dispatcher;
  readonly pipelined?: boolean;
}

export interface CallSuccess<Out> {
  readonly ok: true;
  readonly status: 200;
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The response with documented spellings renamed to their wire form: validated, or the raw body
   * when it does not match the schema (then `schemaIssues` says why and the type is a promise the
   * body may not keep).
   */
  readonly body: Out;
  /** Why the body does not match the response schema; empty when it does. */
  readonly schemaIssues: readonly Issue[];
  readonly exchange: Exchange;
}

export interface CallFailure<Err> {
  readonly ok: false;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON, or the raw text when the body was not JSON. */
  readonly body: unknown;
  /** The body parsed by the error-body schema; undefined when it does not match. */
  readonly error: Err | undefined;
  /** Why the body does not match the error-body schema; empty when it does. */
  readonly errorBodyIssues: readonly Issue[];
  readonly exchange: Exchange;
}

/** A 200 is a success; any other status is a failure, its body checked against the error-body schema. */
export type CallResult<Op extends OperationDef, E extends z.ZodType> = CallSuccess<z.output<Op['response']>> | CallFailure<z.output<E>>;

export interface RawRequest extends RequestOptions {
  readonly method?: string;
  readonly path: string;
  readonly body: string | undefined;
}

export interface RawResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly text: string;
  readonly exchange: Exchange;
}

/** A read-only scenario tried to call an operation that mutates. Nothing was sent. */
export class ReadOnlyViolation extends Error {
  override readonly name = 'ReadOnlyViolation';
}

export interface ClientScope extends TransportScope {
  /** Refuse (throw ReadOnlyViolation, send nothing) any call to an operation with `mutates: true`. */
  readonly readOnly?: boolean;
  /** Told of every `call` answered 200 (with the request body sent), whatever the answer's shape, before it returns: the cleanup ledger listens. */
  readonly onSuccess?: (operation: string, request: unknown) => void;
  /** Told of every `call` before it is sent (with the request body); throwing stops it, nothing is sent. */
  readonly beforeSend?: (operation: string, request: unknown) => void;
  /**
   * Told of every answer to an operation of the table, `call` and `raw` alike (a raw body that is not
   * JSON as undefined), before it returns. Added to the hooks of the client it is made from, never
   * replacing them: the cleanup ledger listens at the root, whatever a scope adds.
   */
  readonly onAnswer?: AnswerListener;
  /**
   * Told of every request to an operation of the table, `call` and `raw` alike, before it is sent,
   * and awaited: the run journal writes down what the request may create before it can (journal.ts).
   * Added to the hooks of the client it is made from, as `onAnswer`; throwing stops the request.
   */
  readonly onSend?: SendListener;
}

/** A request about to be sent: its operation, the request body and the header overrides (a raw body that is not JSON as undefined). */
export type SendListener = (send: { readonly operation: string; readonly request: unknown; readonly headers: HeaderOverrides | undefined }) => void | Promise<void>;

/** An answer to an operation of the table: its name, the request body sent, the status and the parsed body. */
export type AnswerListener = (answer: { readonly operation: string; readonly request: unknown; readonly status: number; readonly body: unknown; readonly headers: HeaderOverrides | undefined }) => void;

/** What `call` learns from a response before the exchange is recorded. */
type Interpreted<Err> =
  | ({ readonly kind: 'success'; readonly res: HttpResponse } & ReturnType<typeof checkResponse>)
  | { readonly kind: 'failure'; readonly res: HttpResponse; readonly error: Err | undefined; readonly errorBodyIssues: readonly Issue[] };

export class Client<Ops extends OperationTable, E extends z.ZodType> {
  readonly operations: Ops;
  readonly errorBody: E;
  readonly transport: Transport;
  readonly readOnly: boolean;
  readonly #byPath: ReadonlyMap<string, OperationDef>;
  readonly #onSuccess: ClientScope['onSuccess'];
  readonly #beforeSend: ClientScope['beforeSend'];
  readonly #onAnswer: readonly AnswerListener[];
  readonly #onSend: readonly SendListener[];
  readonly #headers: HeaderOverrides | undefined;

  constructor(
    operations: Ops,
    errorBody: E,
    transport: Transport,
    readOnly: boolean,
    hooks: Pick<ClientScope, 'onSuccess' | 'beforeSend' | 'headers'> & { readonly onAnswer?: readonly AnswerListener[]; readonly onSend?: readonly SendListener[] } = {},
  ) {
    this.operations = operations;
    this.errorBody = errorBody;
    this.transport = transport;
    this.readOnly = readOnly;
    this.#byPath = new Map(Object.values(operations).map((op) => [op.path, op]));
    this.#onSuccess = hooks.onSuccess;
    this.#beforeSend = hooks.beforeSend;
    this.#onAnswer = hooks.onAnswer ?? [];
    this.#onSend = hooks.onSend ?? [];
    this.#headers = hooks.headers;
  }

  /** Same pool and settings; evidence into `scope.evidence`, cancelled by `scope.signal`, optionally read-only. */
  with(scope: ClientScope): Client<Ops, E> {
    return new Client(this.operations, this.errorBody, this.transport.with(scope), scope.readOnly ?? this.readOnly, {
      onSuccess: scope.onSuccess ?? this.#onSuccess,
      beforeSend: scope.beforeSend ?? this.#beforeSend,
      onAnswer: scope.onAnswer === undefined ? this.#onAnswer : [...this.#onAnswer, scope.onAnswer],
      onSend: scope.onSend === undefined ? this.#onSend : [...this.#onSend, scope.onSend],
      headers: mergeHeaders(this.#headers, scope.headers),
    });
  }

  async call<N extends keyof Ops & string>(
    name: N,
    body: z.input<Ops[N]['request']>,
    given: RequestOptions = {},
  ): Promise<CallResult<Ops[N], E>> {
    // The scope's header overrides under the call's own: the listeners see the key the request goes with.
    const headers = mergeHeaders(this.#headers, given.headers);
    const options: RequestOptions = headers === undefined ? given : { ...given, headers };
    const op = this.operations[name];
    if (!op) throw new Error(`unknown operation ${name}`);
    this.#guard(op, body);
    this.#beforeSend?.(op.name, body);
    await this.#sending(op.name, body, options.headers);
    const { value: seen, exchange } = await this.transport.send<Interpreted<z.output<E>>>(
      { label: op.name, path: op.path, body: JSON.stringify(body), ...options },
      (res) => {
        if (res.status === 200) {
          const checked = checkResponse(op, res);
          return { value: { kind: 'success', res, ...checked }, annotations: checked.annotations };
        }
        const parsed = this.errorBody.safeParse(res.body);
        const errorBodyIssues = parsed.success ? [] : toIssues(parsed.error);
        const error = parsed.success ? parsed.data : undefined;
        return { value: { kind: 'failure', res, error, errorBodyIssues }, annotations: { errorBodyIssues } };
      },
    );
    const { res } = seen;
    // The scope's listener first: it records on behalf of the scenario, the root's then only adds what the answer names.
    if (seen.kind === 'success') this.#onSuccess?.(op.name, body);
    this.#answered(op.name, body, res.status, res.body, options.headers);
    if (seen.kind === 'success') {
      if (!res.isJson) throw new TargetFault(`${op.name}: the 200 answer is not JSON: ${JSON.stringify(res.text.slice(0, 120))}`, exchange);
      const schemaIssues = seen.annotations.schemaIssues;
      const success: CallSuccess<unknown> = { ok: true, status: 200, headers: res.headers, body: seen.body, schemaIssues, exchange };
      return success as CallResult<Ops[N], E>;
    }
    const failure: CallFailure<z.output<E>> = {
      ok: false,
      status: res.status,
      headers: res.headers,
      body: res.body,
      error: seen.error,
      errorBodyIssues: seen.errorBodyIssues,
      exchange,
    };
    return failure;
  }

  async raw(given: RawRequest): Promise<RawResult> {
    const headers = mergeHeaders(this.#headers, given.headers);
    const req: RawRequest = headers === undefined ? given : { ...given, headers };
    const op = this.#byPath.get(req.path);
    if (op) this.#guard(op, parsedOrUndefined(req.body));
    if (op) await this.#sending(op.name, parsedOrUndefined(req.body), req.headers);
    const { value, exchange } = await this.transport.send({ label: 'raw', ...req }, (res) => ({ value: res }));
    if (op) this.#answered(op.name, parsedOrUndefined(req.body), value.status, value.isJson ? value.body : undefined, req.headers);
    return { status: value.status, headers: value.headers, body: value.body, text: value.text, exchange };
  }

  async #sending(operation: string, request: unknown, headers: HeaderOverrides | undefined): Promise<void> {
    for (const listener of this.#onSend) await listener({ operation, request, headers });
  }

  #answered(operation: string, request: unknown, status: number, body: unknown, headers: HeaderOverrides | undefined): void {
    for (const listener of this.#onAnswer) listener({ operation, request, status, body, headers });
  }

  /** Closes the connection pool shared by this client and every client made from it with `with`. */
  close(): Promise<void> {
    return this.transport.close();
  }

  #guard(op: OperationDef, body: unknown): void {
    if (this.readOnly && callMutates(op, body)) {
      throw new ReadOnlyViolation(`${op.name} mutates data, but this client is read-only (the scenario declares mutates: false)`);
    }
  }
}

export function createClient<Ops extends OperationTable, E extends z.ZodType>(options: ClientOptions<Ops, E>): Client<Ops, E> {
  return new Client(options.operations, options.errorBody, new Transport(options), false);
}

/** A raw body as JSON when it is JSON; a guard then decides on what it can read. */
function parsedOrUndefined(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The wire-schema check of a 200: documented spellings renamed, then the body parsed by the response
 * schema. `body` is the parsed body, or the renamed raw one when the check failed; `annotations` go
 * into the evidence either way.
 */
function checkResponse(
  op: OperationDef,
  res: HttpResponse,
): { readonly body: unknown; readonly annotations: ExchangeAnnotations & { readonly schemaIssues: readonly Issue[] } } {
  const spellings = op.documentedSpellings ? normaliseSpellings(res.body, op.documentedSpellings) : undefined;
  const recorded = {
    ...(spellings && Object.keys(spellings.seen).length > 0 ? { spellings: spellings.seen } : {}),
    ...(spellings && spellings.mixedAt.length > 0 ? { mixedSpellings: spellings.mixedAt } : {}),
  };
  const body = spellings ? spellings.value : res.body;
  // Not JSON: no shape to check; `call` reports the answer as unparseable (ERROR).
  if (!res.isJson) return { body, annotations: { schemaIssues: [], ...recorded } };
  const parsed = op.response.safeParse(body);
  return {
    body: parsed.success ? parsed.data : body,
    annotations: { shapeRule: op.shapeRule, schemaIssues: parsed.success ? [] : toIssues(parsed.error), ...recorded },
  };
}

export function toIssues(error: z.ZodError): Issue[] {
  return error.issues.map((issue) => ({ path: z.core.toDotPath(issue.path), message: issue.message }));
}

/**
 * Renames, at every depth, keys spelled as the document spells them (`addOn`) to their wire form
 * (`add_on`), and records per wire key which spelling the body used. When an object carries both
 * spellings of a key, the wire one wins and the key is recorded as `mixed`. `mixedAt`: when the
 * body uses both spellings (one key both ways, or some keys documented and others wire), where.
 */
export function normaliseSpellings(
  body: unknown,
  documentedSpellings: Readonly<Record<string, string>>,
): { value: unknown; seen: Record<string, Spelling>; mixedAt: string[] } {
  const wireOf = new Map(Object.entries(documentedSpellings).map(([wire, documented]) => [documented, wire]));
  const seen: Record<string, Spelling> = {};
  const at: Record<Spelling, string[]> = { wire: [], documented: [], mixed: [] };
  const note = (wire: string, spelling: Spelling, path: string) => {
    const before = seen[wire];
    seen[wire] = before === undefined || before === spelling ? spelling : 'mixed';
    at[spelling].push(path);
  };
  const walk = (value: unknown, path: string): unknown => {
    if (Array.isArray(value)) return value.map((item, i) => walk(item, `${path}[${i}]`));
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    const entries = Object.entries(value);
    for (const [key, inner] of entries) {
      const here = path === '' ? key : `${path}.${key}`;
      const wire = wireOf.get(key);
      if (wire === undefined) {
        if (key in documentedSpellings) note(key, 'wire', here);
        out[key] = walk(inner, here);
      } else if (Object.hasOwn(value, wire)) {
        note(wire, 'mixed', here);
      } else {
        note(wire, 'documented', here);
        out[wire] = walk(inner, here);
      }
    }
    return out;
  };
  const value = walk(body, '');
  const both = at.mixed.length > 0 || (at.documented.length > 0 && at.wire.length > 0);
  const mixedAt = both ? [...at.mixed.map((p) => `${p} (both spellings)`), ...at.documented.map((p) => `${p} (documented)`), ...at.wire.map((p) => `${p} (wire)`)] : [];
  return { value, seen, mixedAt };
}
