/**
 * The HTTP layer under the typed client and the control client: one keep-alive undici Agent, the
 * standard headers, a per-attempt timeout, retries (see retry.ts) and an evidence record of every
 * exchange. It knows nothing about operations; client.ts and control-client.ts interpret answers.
 */
import { Agent, request, type Dispatcher } from 'undici';
import { redactSecrets, type EvidenceLog, type Exchange, type ExchangeDraft, type RetriedAttempt } from './evidence.ts';
import {
  backoffDelay,
  isConnectionReset,
  parseRetryAfter,
  resolveRetryPolicy,
  RETRY_STATUSES,
  type RetryPolicy,
} from './retry.ts';

export interface TransportOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly apiVersion: string;
  /** Per attempt: connect, send, headers and body must all complete within this. */
  readonly timeoutMs: number;
  readonly retry?: Partial<RetryPolicy> | false;
  readonly evidence: EvidenceLog;
}

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
export type ExchangeAnnotations = Pick<ExchangeDraft, 'shapeRule' | 'schemaIssues' | 'errorBodyIssues' | 'spellings'>;

export type TransportFailure = 'timeout' | 'connection' | 'aborted';

/** No response arrived. The exchange (with its error) is already in the evidence log. */
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
  readonly agent: Agent;
  readonly options: TransportOptions;
  readonly origin: string;
}

export class Transport {
  readonly #shared: Shared;
  readonly #evidence: EvidenceLog;
  readonly #signal: AbortSignal | undefined;

  constructor(options: TransportOptions);
  /** @internal the `with` copy: same pool and settings, another log or signal. */
  constructor(shared: Shared, evidence: EvidenceLog, signal: AbortSignal | undefined);
  constructor(first: TransportOptions | Shared, evidence?: EvidenceLog, signal?: AbortSignal) {
    if ('agent' in first) {
      this.#shared = first;
      this.#evidence = evidence ?? first.options.evidence;
      this.#signal = signal;
    } else {
      // keep-alive pool; connections idle longer than 10 s are closed (and a reset of a reused one is retried).
      this.#shared = { agent: new Agent({ keepAliveTimeout: 10_000, connections: 16 }), options: first, origin: first.baseUrl.replace(/\/+$/, '') };
      this.#evidence = first.evidence;
      this.#signal = undefined;
    }
  }

  /** The same connection pool and settings, recording into `evidence` and/or cancelled by `signal`. */
  with(scope: { readonly evidence?: EvidenceLog; readonly signal?: AbortSignal }): Transport {
    return new Transport(this.#shared, scope.evidence ?? this.#evidence, scope.signal ?? this.#signal);
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
    const { options, origin, agent } = this.#shared;
    const policy = resolveRetryPolicy(req.retry ?? options.retry);
    const timeoutMs = req.timeoutMs ?? options.timeoutMs;
    const method = req.method ?? 'POST';
    const url = origin + req.path;
    const headers = buildHeaders(options, req.headers);
    const signal = combine(req.signal, this.#signal);
    const startedAt = new Date();
    const started = policy.now();
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

    const fail = (kind: TransportFailure, message: string, cause?: unknown): TransportError => {
      const exchange = this.#record(draft({ error: message }));
      return new TransportError(`${req.label}: ${message} (${method} ${url})`, kind, exchange, { cause });
    };

    for (let attempt = 1; ; attempt++) {
      let res: HttpResponse;
      try {
        res = await attemptOnce(agent, { method, url, headers, body: req.body }, timeoutMs, signal);
      } catch (error) {
        const failure = describeFailure(error, timeoutMs, signal);
        const wait = backoffDelay(policy, attempt);
        if (!isConnectionReset(error) || !this.#mayRetry(policy, attempt, started, wait)) throw fail(failure.kind, failure.message, error);
        retries.push({ error: failure.message, waitedMs: wait });
        if (!(await this.#waited(policy, wait, signal))) throw fail('aborted', 'aborted while waiting to retry');
        continue;
      }

      if (RETRY_STATUSES.has(res.status)) {
        const wait = parseRetryAfter(res.headers['retry-after'], policy.now()) ?? backoffDelay(policy, attempt);
        if (this.#mayRetry(policy, attempt, started, wait)) {
          retries.push({ status: res.status, waitedMs: wait });
          if (!(await this.#waited(policy, wait, signal))) throw fail('aborted', 'aborted while waiting to retry');
          continue;
        }
      }

      const { value, annotations } = interpret(res);
      const exchange = this.#record(draft({ response: { status: res.status, headers: res.headers, body: res.body }, ...annotations }));
      return { value, exchange };
    }
  }

  /** Another attempt is allowed, and waiting `wait` first stays within the total budget. */
  #mayRetry(policy: RetryPolicy, attempt: number, started: number, wait: number): boolean {
    return attempt < policy.maxAttempts && policy.now() - started + wait <= policy.maxTotalMs;
  }

  /** Appends to the evidence log with this transport's key scrubbed, whatever secrets the log was given. */
  #record(draft: ExchangeDraft): Exchange {
    return this.#evidence.append(redactSecrets(draft, [this.#shared.options.apiKey]));
  }

  /** Sleeps before a retry; false when the caller's signal cut the wait short. */
  async #waited(policy: RetryPolicy, ms: number, signal: AbortSignal | undefined): Promise<boolean> {
    try {
      await policy.sleep(ms, signal);
      return !signal?.aborted;
    } catch (error) {
      if (signal?.aborted) return false;
      throw error;
    }
  }

  /** Closes the shared connection pool (every Transport made by `with` shares it). */
  async close(): Promise<void> {
    await this.#shared.agent.close();
  }
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

function combine(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  return present.length <= 1 ? present[0] : AbortSignal.any(present);
}

async function attemptOnce(
  agent: Dispatcher,
  req: { method: string; url: string; headers: Record<string, string>; body: string | undefined },
  timeoutMs: number,
  outer: AbortSignal | undefined,
): Promise<HttpResponse> {
  const signal = combine(AbortSignal.timeout(timeoutMs), outer);
  const res = await request(req.url, {
    method: req.method as Dispatcher.HttpMethod,
    headers: req.headers,
    body: req.body,
    dispatcher: agent,
    signal,
  });
  const text = await res.body.text();
  const headers = Object.fromEntries(
    Object.entries(res.headers)
      .filter((e): e is [string, string | string[]] => e[1] !== undefined)
      .map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
  );
  return { status: res.statusCode, headers, text, ...parseBody(text) };
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
  outer: AbortSignal | undefined,
): { kind: TransportFailure; message: string } {
  const name = (error as { name?: unknown } | null)?.name;
  if (outer?.aborted) return { kind: 'aborted', message: 'aborted by the caller' };
  if (name === 'TimeoutError' || name === 'AbortError') return { kind: 'timeout', message: `no response within ${timeoutMs} ms` };
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'connection', message: typeof code === 'string' ? `${code}: ${message}` : message };
}
