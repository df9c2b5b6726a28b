import { describe, expect, it } from 'vitest';
import { createRedactor, EvidenceLog, MIN_SECRET_RUN, REDACTED, redactSecrets, truncate, type ExchangeDraft } from './evidence.ts';

const SECRET = 'am_sk_test_0123456789secret';

function draft(overrides: Partial<ExchangeDraft> = {}): ExchangeDraft {
  return {
    label: 'plans.get',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 3,
    attempts: 1,
    retries: [],
    request: { method: 'POST', url: 'http://x/v1/plans.get', headers: { authorization: `Bearer ${SECRET}` }, body: { plan_id: 'p' } },
    response: { status: 200, headers: {}, body: { id: 'p' } },
    ...overrides,
  };
}

describe('EvidenceLog', () => {
  it('scrubs the secret from headers, bodies, object keys and error text before storing', () => {
    const log = new EvidenceLog({ secrets: [SECRET] });
    log.append(
      draft({
        request: { method: 'POST', url: 'http://x/v1/a', headers: { authorization: `Bearer ${SECRET}` }, body: { echo: SECRET, [SECRET]: 1 } },
        response: { status: 401, headers: { 'x-key': SECRET }, body: `Invalid secret key: ${SECRET}` },
        error: `failed with ${SECRET}`,
      }),
    );
    const stored = JSON.stringify(log.entries());
    expect(stored).not.toContain(SECRET);
    expect(log.entries()[0]?.request.headers['authorization']).toBe(`Bearer ${REDACTED}`);
    expect(log.entries()[0]?.request.body).toEqual({ echo: REDACTED, [REDACTED]: 1 });
  });

  it('redacts before truncating, so a cut cannot leave the start of the secret behind', () => {
    const log = new EvidenceLog({ secrets: [SECRET], maxBodyChars: 14 });
    log.append(draft({ response: { status: 200, headers: {}, body: `ABCDEFGHIJ${SECRET}` } }));
    const body = log.entries()[0]?.response?.body;
    expect(body).toMatch(/^ABCDEFGHIJ\[RED… \[truncated, \d+ chars\]$/);
    expect(String(body)).not.toContain('am_s');
  });

  it('stores a long JSON body as truncated text and keeps a short one as it was', () => {
    const log = new EvidenceLog({ maxBodyChars: 20 });
    log.append(draft({ response: { status: 200, headers: {}, body: { list: ['a'.repeat(50)] } } }));
    log.append(draft());
    expect(log.entries()[0]?.response?.body).toMatch(/^\{"list":\["a+… \[truncated, 63 chars\]$/);
    expect(log.entries()[1]?.response?.body).toEqual({ id: 'p' });
  });

  it('gives a child its own entries and copies them to the parent', () => {
    const root = new EvidenceLog({ secrets: [SECRET] });
    const a = root.child();
    const b = root.child();
    a.append(draft({ label: 'a' }));
    b.append(draft({ label: 'b' }));
    a.append(draft({ label: 'a2' }));
    expect(a.entries().map((e) => e.label)).toEqual(['a', 'a2']);
    expect(b.entries().map((e) => e.label)).toEqual(['b']);
    expect(root.entries().map((e) => [e.label, e.seq])).toEqual([['a', 1], ['b', 2], ['a2', 3]]);
    expect(JSON.stringify(root.entries())).not.toContain(SECRET);
  });

  it("scrubs a sender's own key in the same pass as the log's secrets: two keys sharing their first characters give one redaction", () => {
    // The run's key and a key of a tenant of its own, both past the public prefix starting with `f`.
    const runKey = 'am_sk_test_fake0000000000000000000000000000000000000000';
    const tenantKey = 'am_sk_test_f64de0e2d0b070e98890f213ef8fecfa7543';
    const log = new EvidenceLog({ secrets: [tenantKey] });
    const stored = log.append(draft({ request: { method: 'POST', url: 'http://x/v1/a', headers: { authorization: `Bearer ${tenantKey}` }, body: { key: runKey } } }), [runKey]);
    expect(stored.request.headers['authorization']).toBe(`Bearer ${REDACTED}`);
    expect(stored.request.body).toEqual({ key: REDACTED });
  });

  it('drops the oldest entries beyond its capacity', () => {
    const log = new EvidenceLog({ capacity: 2 });
    for (const label of ['1', '2', '3']) log.append(draft({ label }));
    expect(log.entries().map((e) => e.label)).toEqual(['2', '3']);
  });
});

describe('redaction of parts of a secret', () => {
  const KEY = 'am_sk_test_Q7vXk2LmP9rTz4WcY8bN3hJd6FgS1aEu5oKi0MxVyRt';
  const OTHER = 'am_sk_live_Zb8Nc3Vx1Lk5Jh7Gf9Dp2Sa4Mq6Wr0Et';
  const redact = createRedactor([KEY, OTHER]);

  /** Every cut the reports make: the key's first n, last n, or a middle piece, for every n from MIN_SECRET_RUN. */
  function pieces(key: string): string[] {
    const out: string[] = [];
    for (let n = MIN_SECRET_RUN; n <= key.length; n++) out.push(key.slice(0, n), key.slice(key.length - n), key.slice(Math.floor((key.length - n) / 2), Math.floor((key.length - n) / 2) + n));
    return out;
  }

  /** Every key starts with this public prefix: a piece inside it is no secret. */
  const PREFIX = 'am_sk_test_'.length;

  it('scrubs every piece of MIN_SECRET_RUN or more characters of any secret that reaches past its public prefix, wherever it stands', () => {
    for (const key of [KEY, OTHER]) {
      for (const piece of pieces(key).filter((p) => !'am_sk_test_am_sk_live_'.includes(p))) {
        const scrubbed = redact.text(`{"message":"bad key: Bearer ${piece}… [truncated, 900 chars]"}`);
        expect(scrubbed, piece).toContain(REDACTED);
        // Nothing of the secret is left but what any key shares (its prefix) and at most MIN_SECRET_RUN - 1 characters.
        for (let i = PREFIX - MIN_SECRET_RUN + 1; i + MIN_SECRET_RUN <= key.length; i++) expect(scrubbed).not.toContain(key.slice(i, i + MIN_SECRET_RUN));
      }
    }
  });

  it("leaves the suite's own placeholders alone: the public prefix of a key is no secret", () => {
    const hint = 'Set API_KEY to a secret key of the target (am_sk_test_… for a sandbox); a live key looks like am_sk_live_….';
    expect(redact.text(hint)).toBe(hint);
    expect(redact.text(`echoed: ${KEY} and ${OTHER.slice(4)}`)).toBe(`echoed: ${REDACTED} and ${REDACTED}`);
  });

  it('keeps the text around a piece, and two separate pieces are two redactions', () => {
    expect(redact.text(`before ${KEY.slice(5, 30)} middle ${OTHER.slice(-12)} after`)).toBe(`before ${REDACTED} middle ${REDACTED} after`);
  });

  it('leaves text that shares fewer than MIN_SECRET_RUN consecutive characters with every secret', () => {
    const near = `${KEY.slice(0, MIN_SECRET_RUN - 1)}|${KEY.slice(20, 20 + MIN_SECRET_RUN - 1)}`;
    expect(redact.text(near)).toBe(near);
    expect(redact.text('{"id":"plan_pro","name":"Pro"}')).toBe('{"id":"plan_pro","name":"Pro"}');
  });

  it('redacts a secret shorter than MIN_SECRET_RUN whole', () => {
    expect(createRedactor(['s3cr']).text('a s3cr b')).toBe(`a ${REDACTED} b`);
  });

  it('scrubs a megabyte of text that repeats a cut key', () => {
    const text = `${'x'.repeat(300)}${KEY.slice(0, 40)}`.repeat(3_000);
    const scrubbed = redact.text(text);
    expect(scrubbed).not.toContain(KEY.slice(0, MIN_SECRET_RUN));
    expect(scrubbed.split(REDACTED)).toHaveLength(3_001);
  });
});

describe('redactSecrets / truncate', () => {
  it('ignores empty secrets instead of redacting between every character', () => {
    expect(redactSecrets({ a: 'abc' }, [''])).toEqual({ a: 'abc' });
  });

  it('leaves non-string leaves alone', () => {
    expect(redactSecrets({ n: 1, b: true, z: null, l: [SECRET, 2] }, [SECRET])).toEqual({ n: 1, b: true, z: null, l: [REDACTED, 2] });
  });

  it('truncates only beyond the limit', () => {
    expect(truncate('abcdef', 6)).toBe('abcdef');
    expect(truncate('abcdefg', 6)).toBe('abcdef… [truncated, 7 chars]');
  });
});
