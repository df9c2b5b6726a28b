/**
 * The HTTP layer under the typed client and the control client: one keep-alive undici Agent, the
 * standard headers, a per-attempt timeout, a cap on response bodies, retries (see retry.ts), the run
 * guard (deadline and fail-fast, see guard.ts) and an evidence record of every exchange. It knows
 * nothing about operations; client.ts and control-client.ts interpret answers.
 *
 * Whatever the target does, a request ends: answered (any status, 5xx included: the caller decides
 * what it means), or with a TransportError whose `kind` says why nothing usable came back.
 */
import { Agent, Client, request, type Dispatcher } from 'undici';
import {
  type AnswerFault,
  type EvidenceLog,
  type Exchange,
  type ExchangeDraft,
  type ExchangeFault,
  type RetriedAttempt,
} from './evidence.ts';
import type { TransportLimits } from './guard.ts';
import type { TargetWait } from './pace.ts';
import type { RateLimiter } from './rate-limit.ts';
import {
  backoffDelay,
  isConnectionReset,
  parseRetryAfter,
  resolveRetryPolicy,
  RETRY_STATUSES,
  type RetryPolicy,
} from './retry.ts';

/** The target, its key and version, the evidence log, and the limits of guard.ts (each optional: 1 MiB bodies, the default retry policy, no guard). */
export interface TransportOptions extends Partial<TransportLimits> {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly apiVersion: string;
  /** Per attempt: connect, send, headers and body must all complete within this. */
  readonly timeoutMs: number;
  readonly evidence: EvidenceLog;
  /** Where requests go instead of a keep-alive pool of sockets (the meta-tests' in-process fake). */
  readonly dispatcher?: Dispatcher;
  /** The run's shared limiter (rate-limit.ts): asked before every attempt, told of every 429/503 the client waits out. */
  readonly limiter?: RateLimiter;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Header values override the defaults; `null` removes a default header (e.g. `authorization`). */
export type HeaderOverrides = Readonly<Record<string, string | null>>;

export interface HttpRequest {
  /** What the evidence calls this exchange: an operation name, `control:<call>`, `raw`. */
  readonly label: string;
  readonly method?: string;
  /** Path under the base URL, starting with `/`. */
  readonly path: string;
  readonly headers?: HeaderOverrides;
  readonly body: string | undefined;
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryPolicy> | false;
  readonly signal?: AbortSignal;
  /** Another connection than the shared pool's (one connection pipelining requests, for the exploration's pipelined pairs). */
  readonly dispatcher?: Dispatcher;
  /**
   * Sent on the connection before the previous request is answered (undici waits for an answer after
   * a request not marked idempotent, or marked blocking, as every POST is by default).
   */
  readonly pipelined?: boolean;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  /** Parsed JSON when the text is JSON, else the text itself; undefined when empty. */
  readonly body: unknown;
  readonly isJson: boolean;
}

/** What a caller adds to the evidence after looking at a response. */
export type ExchangeAnnotations = Pick<ExchangeDraft, 'shapeRule' | 'schemaIssues' | 'errorBodyIssues' | 'spellings' | 'mixedSpellings'>;

/**
 * Why a request ended without a usable answer. All of them are the target's or the harness's fault,
 * never a verdict on a rule (ERROR, not FAIL).
 * - `timeout`: no complete answer within the per-attempt timeout.
 * - `connection`: refused, reset or dropped.
 * - `oversize`: the answer's body is longer than `maxBodyBytes` (reading stopped at the cap).
 * - `aborted`: the caller cancelled (scenario timeout, run cancelled).
 * - `deadline`: not sent, the run's deadline has passed.
 * - `circuit-open`: not sent, the target left too many requests in a row unserved.
 */
export type TransportFailure = Exclude<ExchangeFault, AnswerFault>;

/**
 * What an answer's status and body say about the target rather than the interface: a 5xx, a 429/503
 * (when it is the final answer, the retry budget is spent) or a body that is not JSON. Undefined for
 * an answer that can be judged.
 */
export function answerFault(res: Pick<HttpResponse, 'status' | 'text' | 'isJson'>): AnswerFault | undefined {
  if (RETRY_STATUSES.has(res.status)) return 'rate-limited';
  if (res.status >= 500) return 'server-error';
  if (res.text !== '' && !res.isJson) return 'unparseable';
  return undefined;
}

/** No usable response arrived. The exchange (with its error) is already in the evidence log. */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    message: string,
    readonly kind: TransportFailure,
    readonly exchange: Exchange,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

interface Shared {
  readonly agent: Dispatcher;
  readonly options: TransportOptions;
  readonly origin: string;
  /** This transport's own key, scrubbed whatever secrets the evidence log was given. */
  readonly ownSecrets: readonly string[];
}

/** What a `with` copy of a transport records into, is cancelled by, and counts its waits in. */
export interface TransportScope {
  readonly evidence?: EvidenceLog;
  readonly signal?: AbortSignal;
  /** Counts the time a request of this scope is pending (a scenario's time limit leaves it out: pace.ts). */
  readonly waits?: TargetWait;
  /** Header overrides of every request of this scope, under the request's own (a scenario in a tenant of its own sends that tenant's key). */
  readonly headers?: HeaderOverrides;
}

export class Transport {
  readonly #shared: Shared;
  readonly #evidence: EvidenceLog;
  readonly #signal: AbortSignal | undefined;
  readonly #waits: TargetWait | undefined;
  readonly #headers: HeaderOverrides | undefined;

  constructor(options: TransportOptions);
  /** @internal the `with` copy: same pool and settings, another log, signal, wait counter or header overrides. */
  constructor(shared: Shared, evidence: EvidenceLog, signal: AbortSignal | undefined, waits: TargetWait | undefined, headers: HeaderOverrides | undefined);
  constructor(first: TransportOptions | Shared, evidence?: EvidenceLog, signal?: AbortSignal, waits?: TargetWait, headers?: HeaderOverrides) {
    this.#waits = waits;
    this.#headers = headers;
    if ('agent' in first) {
      this.#shared = first;
      this.#evidence = evidence ?? first.options.evidence;
      this.#signal = signal;
    } else {
      // keep-alive pool, a connection for each request the limiter lets be in flight; connections idle
      // longer than 10 s are closed (and a reset of a reused one is retried).
      this.#shared = {
        agent: first.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: Math.max(16, first.limiter?.maxInFlight ?? 0) }),
        options: first,
        origin: first.baseUrl.replace(/\/+$/, ''),
        ownSecrets: [first.apiKey],
      };
      this.#evidence = first.evidence;
      this.#signal = undefined;
    }
  }

  /**
   * One connection of its own to the target that sends requests pipelined, two at a time (the
   * exploration's pipelined pairs); where the transport was given a dispatcher (a target in this
   * process, no connections), that one. Closed by the caller.
   */
  pipelinedConnection(): { readonly dispatcher: Dispatcher; close(): Promise<void> } {
    const given = this.#shared.options.dispatcher;
    if (given !== undefined) return { dispatcher: given, close: async () => undefined };
    const connection = new Client(this.#shared.origin, { pipelining: 2 });
    return { dispatcher: connection, close: () => connection.close() };
  }

  /** The same connection pool and settings, recording into `evidence`, cancelled by `signal`, counting its waits in `waits`, its `headers` over this one's. */
  with(scope: TransportScope): Transport {
    return new Transport(this.#shared, scope.evidence ?? this.#evidence, scope.signal ?? this.#signal, scope.waits ?? this.#waits, mergeHeaders(this.#headers, scope.headers));
  }

  /**
   * Sends one request (retrying as the policy allows), lets `interpret` look at the final response,
   * records the exchange with interpret's annotations, and returns interpret's value with the exchange.
   * Throws TransportError when no response arrived.
   */
  async send<T>(
    req: HttpRequest,
    interpret: (res: HttpResponse) => { readonly value: T; readonly annotations?: ExchangeAnnotations },
  ): Promise<{ readonly value: T; readonly exchange: Exchange }> {
    const done = this.#waits?.begin();
    try {
      return await this.#send(req, interpret);
    } finally {
      done?.();
    }
  }

  async #send<T>(
    req: HttpRequest,
    interpret: (res: HttpResponse) => { readonly value: T; readonly annotations?: ExchangeAnnotations },
  ): Promise<{ readonly value: T; readonly exchange: Exchange }> {
    const { options, origin, agent } = this.#shared;
    const guard = options.guard;
    const policy = resolveRetryPolicy(req.retry ?? options.retry);
    const timeoutMs = req.timeoutMs ?? options.timeoutMs;
    const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const method = req.method ?? 'POST';
    const url = origin + req.path;
    const headers = buildHeaders(options, mergeHeaders(this.#headers, req.headers));
    const signals = [req.signal, this.#signal].filter((s): s is AbortSignal => s !== undefined);
    let startedAt = new Date();
    let started = policy.now();
    const retries: RetriedAttempt[] = [];
    const draft = (rest: Omit<ExchangeDraft, 'label' | 'startedAt' | 'durationMs' | 'attempts' | 'retries' | 'request'>): ExchangeDraft => ({
      label: req.label,
      startedAt: startedAt.toISOString(),
      durationMs: Math.max(0, policy.now() - started),
      attempts: retries.length + 1,
      retries,
      request: { method, url, headers, body: parseBody(req.body ?? '').body },
      ...rest,
    });

    const fail = (kind: TransportFailure, message: string, extra: { cause?: unknown; response?: ExchangeDraft['response'] } = {}): TransportError => {
      const exchange = this.#record(draft({ error: message, fault: kind, ...(extra.response ? { response: extra.response } : {}) }));
      if (kind === 'timeout' || kind === 'connection') guard?.recordFailure(`${req.label}: ${message}`);
      return new TransportError(`${req.label}: ${message} (${method} ${url})`, kind, exchange, { cause: extra.cause });
    };

    for (let attempt = 1; ; attempt++) {
      const release = await this.#acquire(signals);
      if (release === undefined) throw fail('aborted', 'aborted while waiting for the run to slow down after a 429/503');
      // A wait for the run to slow down is no part of this request's retry budget.
      if (attempt === 1) [startedAt, started] = [new Date(), policy.now()];
      const refused = guard?.refusal();
      if (refused) {
        release();
        throw fail(refused.kind, refused.message);
      }
      // Never wait for an answer past the run's deadline.
      const attemptTimeoutMs = guard ? Math.min(timeoutMs, guard.remainingMs()) : timeoutMs;
      let res: HttpResponse;
      const attemptStarted = policy.now();
      try {
        res = await attemptOnce(req.dispatcher ?? agent, { method, url, headers, body: req.body, pipelined: req.pipelined === true }, { timeoutMs: attemptTimeoutMs, maxBodyBytes, signals });
      } catch (error) {
        release();
        if (error instanceof BodyTooLarge) {
          guard?.recordServed();
          throw fail('oversize', error.message, { response: { status: error.status, headers: error.headers, body: undefined } });
        }
        const failure = describeFailure(error, attemptTimeoutMs, signals);
        const wait = backoffDelay(policy, attempt);
        if (failure.kind !== 'connection' || !isConnectionReset(error) || !this.#mayRetry(policy, attempt, started, wait)) {
          throw fail(failure.kind, failure.message, { cause: error });
        }
        retries.push({ error: failure.message, waitedMs: wait });
        if (!(await this.#waited(policy, wait, signals))) throw fail('aborted', 'aborted while waiting to retry');
        continue;
      }

      release();
      if (RETRY_STATUSES.has(res.status)) {
        const wait = parseRetryAfter(res.headers['retry-after'], policy.now()) ?? backoffDelay(policy, attempt);
        if (this.#mayRetry(policy, attempt, started, wait)) {
          options.limiter?.throttled(wait);
          retries.push({ status: res.status, waitedMs: wait });
          if (!(await this.#waited(policy, wait, signals))) throw fail('aborted', 'aborted while waiting to retry');
          continue;
        }
        guard?.recordFailure(`${req.label}: ${res.status} after ${attempt} attempt(s), beyond the retry budget`);
      } else {
        guard?.recordServed();
        options.limiter?.served(policy.now() - attemptStarted);
      }

      const { value, annotations } = interpret(res);
      const fault = answerFault(res);
      const exchange = this.#record(draft({ response: { status: res.status, headers: res.headers, body: res.body }, ...annotations, ...(fault ? { fault } : {}) }));
      return { value, exchange };
    }
  }

  /** A place among the requests the run's limiter lets be in flight (a no-op without one); undefined when a caller's signal cut the wait short. */
  async #acquire(signals: readonly AbortSignal[]): Promise<(() => void) | undefined> {
    const { limiter, guard } = this.#shared.options;
    if (limiter === undefined) return () => {};
    const linked = linkSignals(signals);
    try {
      return await limiter.acquire(linked.signal, guard?.remainingMs());
    } catch (error) {
      if (signals.some((s) => s.aborted)) return undefined;
      throw error;
    } finally {
      linked.unlink();
    }
  }

  /** Another attempt is allowed, and waiting `wait` first stays within the total budget. */
  #mayRetry(policy: RetryPolicy, attempt: number, started: number, wait: number): boolean {
    const guard = this.#shared.options.guard;
    const beforeDeadline = guard === undefined || wait < guard.remainingMs();
    return attempt < policy.maxAttempts && policy.now() - started + wait <= policy.maxTotalMs && beforeDeadline;
  }

  /** Appends to the evidence log with this transport's key scrubbed, whatever secrets the log was given. */
  #record(draft: ExchangeDraft): Exchange {
    return this.#evidence.append(draft, this.#shared.ownSecrets);
  }

  /** Sleeps before a retry; false when a caller's signal cut the wait short. */
  async #waited(policy: RetryPolicy, ms: number, signals: readonly AbortSignal[]): Promise<boolean> {
    const aborted = () => signals.some((s) => s.aborted);
    const linked = linkSignals(signals);
    try {
      await policy.sleep(ms, linked.signal);
      return !aborted();
    } catch (error) {
      if (aborted()) return false;
      throw error;
    } finally {
      linked.unlink();
    }
  }

  /** Closes the shared connection pool (every Transport made by `with` shares it). */
  async close(): Promise<void> {
    await this.#shared.agent.close();
  }
}

/** `over` on top of `base`, a header named in both (in any case) taking `over`'s value. */
export function mergeHeaders(base: HeaderOverrides | undefined, over: HeaderOverrides | undefined): HeaderOverrides | undefined {
  if (base === undefined || over === undefined) return over ?? base;
  const named = new Set(Object.keys(over).map((name) => name.toLowerCase()));
  return { ...Object.fromEntries(Object.entries(base).filter(([name]) => !named.has(name.toLowerCase()))), ...over };
}

function buildHeaders(options: TransportOptions, overrides: HeaderOverrides | undefined): Record<string, string> {
  const headers: Record<string, string | null> = {
    authorization: `Bearer ${options.apiKey}`,
    'x-api-version': options.apiVersion,
    'content-type': 'application/json',
  };
  for (const [name, value] of Object.entries(overrides ?? {})) headers[name.toLowerCase()] = value;
  return Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== null));
}

/**
 * One controller aborted by any of `signals`, with listeners removed by `unlink`. Not
 * `AbortSignal.any`: in Node 20 a combined signal can lose its sources to garbage collection, and
 * with them its timeout (nodejs/node#57736).
 */
function linkSignals(signals: readonly AbortSignal[]): { readonly controller: AbortController; readonly signal: AbortSignal; unlink(): void } {
  const controller = new AbortController();
  const listeners = signals.map((source) => {
    const abort = () => controller.abort(source.reason);
    if (source.aborted) abort();
    else source.addEventListener('abort', abort, { once: true });
    return () => source.removeEventListener('abort', abort);
  });
  return { controller, signal: controller.signal, unlink: () => listeners.forEach((remove) => remove()) };
}

/** The answer's body is longer than the cap; reading stopped there. */
class BodyTooLarge extends Error {
  constructor(
    readonly status: number,
    readonly headers: Readonly<Record<string, string>>,
    maxBodyBytes: number,
    declared: number | undefined,
  ) {
    super(
      `the answer's body is longer than the ${maxBodyBytes}-byte cap (CONFORMANCE_MAX_BODY_BYTES)` +
        (declared === undefined ? '; reading stopped at the cap' : `: content-length ${declared}, not read`),
    );
  }
}

/** The attempt's timeout fired (our own timer, so garbage collection cannot lose it). */
class AttemptTimeout extends Error {
  override readonly name = 'AttemptTimeout';
}

async function attemptOnce(
  agent: Dispatcher,
  req: { method: string; url: string; headers: Record<string, string>; body: string | undefined; pipelined: boolean },
  limits: { readonly timeoutMs: number; readonly maxBodyBytes: number; readonly signals: readonly AbortSignal[] },
): Promise<HttpResponse> {
  const linked = linkSignals(limits.signals);
  // A timer we hold: it bounds connect, send, headers and the whole body together.
  const timer = setTimeout(() => linked.controller.abort(new AttemptTimeout()), limits.timeoutMs);
  try {
    const res = await request(req.url, {
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      body: req.body,
      dispatcher: agent,
      ...(req.pipelined ? { idempotent: true, blocking: false } : {}),
      signal: linked.signal,
      // undici's own timers as a second line: they do not depend on any AbortSignal.
      headersTimeout: limits.timeoutMs,
      bodyTimeout: limits.timeoutMs,
    });
    const headers = Object.fromEntries(
      Object.entries(res.headers)
        .filter((e): e is [string, string | string[]] => e[1] !== undefined)
        .map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
    );
    const text = await readCapped(res.statusCode, headers, res.body, limits.maxBodyBytes);
    return { status: res.statusCode, headers, text, ...parseBody(text) };
  } catch (error) {
    // undici rejects with the abort reason or its own AbortError; either way the timer says what happened.
    if (linked.signal.reason instanceof AttemptTimeout) throw linked.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
    linked.unlink();
  }
}

/** The body as text, reading no further than `max` bytes (an endless body is cut, not buffered). */
async function readCapped(status: number, headers: Readonly<Record<string, string>>, body: Dispatcher.ResponseData['body'], max: number): Promise<string> {
  const declared = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
  if (declared !== undefined && declared > max) {
    discard(body);
    throw new BodyTooLarge(status, headers, max, declared);
  }
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    length += buffer.length;
    if (length > max) {
      discard(body);
      throw new BodyTooLarge(status, headers, max, undefined);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, length).toString('utf8');
}

/** Stops reading a body and drops its connection; the stream's own "aborted" error is expected, not a failure. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

export function parseBody(text: string): { body: unknown; isJson: boolean } {
  if (text === '') return { body: undefined, isJson: false };
  try {
    return { body: JSON.parse(text) as unknown, isJson: true };
  } catch {
    return { body: text, isJson: false };
  }
}

function describeFailure(
  error: unknown,
  timeoutMs: number,
  signals: readonly AbortSignal[],
): { kind: 'timeout' | 'connection' | 'aborted'; message: string } {
  if (error instanceof AttemptTimeout) return { kind: 'timeout', message: `no response within ${timeoutMs} ms` };
  if (signals.some((s) => s.aborted)) return { kind: 'aborted', message: 'aborted by the caller' };
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return { kind: 'timeout', message: `no response within ${timeoutMs} ms` };
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'connection', message: typeof code === 'string' ? `${code}: ${message}` : message };
}
