/**
 * The evidence log: every HTTP exchange the suite makes, redacted before it is stored, so a report
 * can show what a failing scenario actually sent and received.
 *
 * Secrets (the API keys) are scrubbed from every string of an exchange (URL, header values, bodies,
 * error text) when it is appended, before anything is cut; any run of MIN_SECRET_RUN or more of a
 * key's characters counts, so a key quoted in part is scrubbed too. The raw key is never stored. A log can have child logs (one per
 * scenario): an exchange appended to a child is also appended to its ancestors.
 */

/** One schema problem: where (`list[0].add_on`, empty for the root) and what. */
export interface Issue {
  readonly path: string;
  readonly message: string;
}

/** Which spelling of a documented-differently key a response used (DESIGN.md decision 2). */
export type Spelling = 'wire' | 'documented' | 'mixed';

export interface ExchangeRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON when the body was JSON, else the raw text; undefined when no body was sent. */
  readonly body: unknown;
}

export interface ExchangeResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON when the body was JSON, else the raw text; undefined when empty. */
  readonly body: unknown;
}

/** A retried attempt: what came back (a status or an error) and how long the client waited before the next try. */
export interface RetriedAttempt {
  readonly status?: number;
  readonly error?: string;
  readonly waitedMs: number;
}

export interface Exchange {
  /** Order of the exchange in the log it was first appended to. */
  readonly seq: number;
  /** Operation name (`plans.get`), `control:<call>` or `raw`. */
  readonly label: string;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly attempts: number;
  readonly retries: readonly RetriedAttempt[];
  readonly request: ExchangeRequest;
  /** Absent when no response arrived (timeout, connection failure). */
  readonly response?: ExchangeResponse;
  /** Transport failure, when no response arrived. */
  readonly error?: string;
  /** The rule a 200's wire-schema check proves, and the check's problems (empty when it passed). */
  readonly shapeRule?: string;
  readonly schemaIssues?: readonly Issue[];
  /** Problems of an error response's body against the error-body schema (empty when it matched). */
  readonly errorBodyIssues?: readonly Issue[];
  /** Wire key → spelling the response used, for keys the document spells differently. */
  readonly spellings?: Readonly<Record<string, Spelling>>;
  /** Where a response used both spellings (one key both ways, or some keys documented and others wire); absent when it kept to one. */
  readonly mixedSpellings?: readonly string[];
  /**
   * Set when the exchange says nothing about the interface, because the target (or the harness)
   * failed: a TransportFailure kind when no usable answer came, else `server-error` (5xx),
   * `rate-limited` (429/503 beyond the retry budget) or `unparseable` (a body that is not JSON).
   * A verdict resting on such an exchange is ERROR, never FAIL (DESIGN.md decision 7).
   */
  readonly fault?: ExchangeFault;
}

export type ExchangeFault = 'timeout' | 'connection' | 'oversize' | 'aborted' | 'deadline' | 'circuit-open' | AnswerFault;
export type AnswerFault = 'server-error' | 'rate-limited' | 'unparseable';

export type ExchangeDraft = Omit<Exchange, 'seq'>;

export const REDACTED = '[REDACTED]';

export interface EvidenceLogOptions {
  /** Strings that must never be stored (the API key). */
  readonly secrets?: readonly string[];
  /** Bodies whose JSON text is longer are stored as a truncated string. Default 64 KiB. */
  readonly maxBodyChars?: number;
  /** Oldest exchanges are dropped beyond this many. Default: unbounded. */
  readonly capacity?: number;
}

export class EvidenceLog {
  readonly #secrets: readonly string[];
  readonly #redactor: Redactor;
  readonly #maxBodyChars: number;
  readonly #capacity: number;
  readonly #parent: EvidenceLog | undefined;
  readonly #entries: Exchange[] = [];
  #seq = 0;

  constructor(options: EvidenceLogOptions = {}, parent?: EvidenceLog) {
    this.#secrets = options.secrets ?? [];
    this.#redactor = createRedactor(this.#secrets);
    this.#maxBodyChars = options.maxBodyChars ?? 64 * 1024;
    this.#capacity = options.capacity ?? Number.POSITIVE_INFINITY;
    this.#parent = parent;
  }

  /**
   * A log scoped to one scenario: same redaction (and `secrets` besides: the keys of a tenant of its
   * own), its own entries, and everything it gets also goes to this log, redacted as it is here.
   */
  child(secrets: readonly string[] = []): EvidenceLog {
    return new EvidenceLog({ secrets: [...this.#secrets, ...secrets], maxBodyChars: this.#maxBodyChars }, this);
  }

  /**
   * Redacts and stores an exchange (here and in every ancestor); returns the stored form. `alsoSecrets`
   * (a sender's own key, which the log may not know) are scrubbed in the same pass: scrubbed one
   * secret set after the other, a key sharing its first characters with another was cut in two
   * (`Bearer [REDACTED][REDACTED]`).
   */
  append(draft: ExchangeDraft, alsoSecrets: readonly string[] = []): Exchange {
    // Redact before truncating, so a cut can never leave part of a secret behind.
    const redacted = this.#redactorWith(alsoSecrets).value(draft);
    const clean: ExchangeDraft = {
      ...redacted,
      request: { ...redacted.request, body: this.#bounded(redacted.request.body) },
      ...(redacted.response ? { response: { ...redacted.response, body: this.#bounded(redacted.response.body) } } : {}),
    };
    return this.#store(clean);
  }

  readonly #redactors = new Map<string, Redactor>();

  #redactorWith(alsoSecrets: readonly string[]): Redactor {
    const more = alsoSecrets.filter((secret) => !this.#secrets.includes(secret));
    if (more.length === 0) return this.#redactor;
    const key = more.join('\0');
    let redactor = this.#redactors.get(key);
    if (redactor === undefined) this.#redactors.set(key, (redactor = createRedactor([...this.#secrets, ...more])));
    return redactor;
  }

  #store(clean: ExchangeDraft): Exchange {
    const exchange: Exchange = { seq: ++this.#seq, ...clean };
    this.#entries.push(exchange);
    if (this.#entries.length > this.#capacity) this.#entries.splice(0, this.#entries.length - this.#capacity);
    if (this.#parent) this.#parent.#store(clean);
    return exchange;
  }

  entries(): readonly Exchange[] {
    return [...this.#entries];
  }

  /** Deep copy of `value` with every run of a secret's characters (see MIN_SECRET_RUN) replaced by `[REDACTED]`, in keys and string values alike. */
  redact<T>(value: T): T {
    return this.#redactor.value(value);
  }

  #bounded(body: unknown): unknown {
    if (body === undefined) return undefined;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return text.length > this.#maxBodyChars ? truncate(text, this.#maxBodyChars) : body;
  }
}

/**
 * Any run of at least this many consecutive characters of a secret is redacted, wherever it stands:
 * a key cut by a truncation, or quoted in part, never survives. A secret shorter than this is redacted whole.
 */
export const MIN_SECRET_RUN = 8;
/** Half of MIN_SECRET_RUN: the block size of the scan (see createRedactor). */
const QUAD = MIN_SECRET_RUN / 2;

/** Scrubs strings (and strings inside values) of every run of MIN_SECRET_RUN or more characters of any secret. */
export interface Redactor {
  text(text: string): string;
  /** Deep copy with every string, keys included, scrubbed; other leaves unchanged. */
  value<T>(value: T): T;
}

/**
 * The public prefixes of the target's keys (DESIGN.md decision 6): every key of a kind starts with
 * one, so a run of characters inside it is no secret, and the suite's own placeholders
 * (`am_sk_test_…`) stay as written.
 */
const PUBLIC_KEY_PREFIXES = ['am_sk_test_', 'am_sk_live_'];

export function createRedactor(secrets: readonly string[]): Redactor {
  const grams = new Set<string>();
  const quads = new Set<string>();
  const quadCodes = new Set<number>();
  const whole: string[] = [];
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    if (secret.length < MIN_SECRET_RUN) whole.push(secret);
    // A run lying wholly inside the key's public prefix gives nothing away; one reaching past it does.
    const open = PUBLIC_KEY_PREFIXES.find((prefix) => secret.startsWith(prefix) && secret.length > prefix.length)?.length ?? 0;
    for (let i = 0; i + MIN_SECRET_RUN <= secret.length; i++) if (i + MIN_SECRET_RUN > open) grams.add(secret.slice(i, i + MIN_SECRET_RUN));
    for (let i = 0; i + QUAD <= secret.length; i++) {
      quads.add(secret.slice(i, i + QUAD));
      quadCodes.add(quadCode(secret, i));
    }
  }
  if (grams.size === 0 && whole.length === 0) return { text: (t) => t, value: (v) => v };

  const text = (input: string): string => {
    // Every window of MIN_SECRET_RUN characters holds a whole QUAD-aligned block of QUAD characters,
    // so only windows around aligned blocks that occur in a secret need looking at. A block's code
    // rules most blocks out without cutting a string for each (every exchange is scanned, twice).
    const starts: number[] = [];
    for (let block = 0; block + QUAD <= input.length; block += QUAD) {
      if (!quadCodes.has(quadCode(input, block)) || !quads.has(input.slice(block, block + QUAD))) continue;
      for (let i = Math.max(0, block - (MIN_SECRET_RUN - QUAD), starts.length > 0 ? starts[starts.length - 1]! + 1 : 0); i <= block; i++) {
        if (i + MIN_SECRET_RUN <= input.length && grams.has(input.slice(i, i + MIN_SECRET_RUN))) starts.push(i);
      }
    }
    let out = '';
    let copiedTo = 0;
    for (let k = 0; k < starts.length; ) {
      // A key's public prefix goes with the rest of it: `Bearer [REDACTED]`, not `Bearer am_s[REDACTED]`.
      const runStart = Math.max(copiedTo, withPrefix(input, starts[k]!));
      let runEnd = runStart + MIN_SECRET_RUN;
      for (k++; k < starts.length && starts[k]! <= runEnd; k++) runEnd = starts[k]! + MIN_SECRET_RUN;
      out += input.slice(copiedTo, runStart) + REDACTED;
      copiedTo = runEnd;
    }
    const scrubbed = copiedTo === 0 ? input : out + input.slice(copiedTo);
    return whole.reduce((acc, secret) => acc.replaceAll(secret, REDACTED), scrubbed);
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, inner]) => [text(k), walk(inner)]));
    return v;
  };
  return { text, value: <T>(v: T) => walk(v) as T };
}

/** A number for the QUAD characters at `at` (equal blocks, equal codes; a few others share one). */
function quadCode(text: string, at: number): number {
  return (((text.charCodeAt(at) * 31 + text.charCodeAt(at + 1)) | 0) * 961 + text.charCodeAt(at + 2) * 31 + text.charCodeAt(at + 3)) | 0;
}

/** Where a redacted run starts once the part of a public key prefix just before it is taken along. */
function withPrefix(input: string, start: number): number {
  for (const prefix of PUBLIC_KEY_PREFIXES) {
    for (let before = prefix.length - 1; before > 0; before--) {
      if (input.startsWith(prefix.slice(before), start) && input.slice(start - before, start) === prefix.slice(0, before)) return start - before;
    }
  }
  return start;
}

/** One-off redaction; build a Redactor once where the same secrets scrub many values. */
export function redactSecrets<T>(value: T, secrets: readonly string[]): T {
  return createRedactor(secrets).value(value);
}

/** `text` cut to `max` characters, saying how long it was. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [truncated, ${text.length} chars]`;
}

/**
 * A call of a scenario as its replay script needs it (suites/report/replay.ts): the request whole (up
 * to the log's body cap), what came back, and which of its values the target had made up (taken
 * from an earlier answer, so a replay on another target must take them from its own answers).
 */
export interface ReplayCall {
  readonly seq: number;
  readonly label: string;
  readonly request: ExchangeRequest;
  /** Absent when no answer came. */
  readonly status?: number;
  readonly fromAnswers?: readonly AnswerValue[];
}

/** A request value first seen in an earlier answer: the call that answered it and where in its body. */
export interface AnswerValue {
  readonly value: string;
  readonly seq: number;
  readonly path: string;
}

/** Calls kept for a replay, from the scenario's first: enough for any scenario of the suite, bounded for one that loops. */
export const REPLAY_CALLS = 100;
/** Strings that can be a made-up identifier or cursor: one token, long enough not to be a word of the interface. */
const OPAQUE = /^(?=.*\d)[A-Za-z0-9_\-:.=+/]{8,}$/;

/** The first REPLAY_CALLS calls of a scenario's log, for a replay script. */
export function replayableCalls(exchanges: readonly Exchange[]): ReplayCall[] {
  const sent = new Set<string>();
  const answered = new Map<string, AnswerValue>();
  return exchanges.slice(0, REPLAY_CALLS).map((exchange) => {
    const fromAnswers: AnswerValue[] = [];
    for (const [, value] of leaves(exchange.request.body)) {
      const origin = answered.get(value);
      if (origin !== undefined && !sent.has(value) && !fromAnswers.some((v) => v.value === value)) fromAnswers.push(origin);
    }
    for (const [, value] of leaves(exchange.request.body)) sent.add(value);
    for (const [path, value] of leaves(exchange.response?.body)) if (!answered.has(value)) answered.set(value, { value, seq: exchange.seq, path });
    return {
      seq: exchange.seq,
      label: exchange.label,
      request: exchange.request,
      ...(exchange.response ? { status: exchange.response.status } : {}),
      ...(fromAnswers.length > 0 ? { fromAnswers } : {}),
    };
  });
}

/** Opaque string leaves of a JSON value with their paths (`.list[0].id`). */
function leaves(value: unknown, path = ''): [string, string][] {
  if (typeof value === 'string') return OPAQUE.test(value) ? [[path || '.', value]] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, `${path}[${i}]`));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => leaves(v, /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`));
  return [];
}
