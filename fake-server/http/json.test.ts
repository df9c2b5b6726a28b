import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../spec/common.ts';
import { errorResponse, MAX_JSON_DEPTH, nestingDepth, parseJsonBody, readJsonBody } from './json.ts';

function post(body: RequestInit['body'], headers: Record<string, string> = {}): Request {
  return new Request('http://fake/v1/plans.get', { method: 'POST', body, headers, ...(body instanceof ReadableStream && { duplex: 'half' }) } as RequestInit);
}

/** A body streamed in chunks, without a Content-Length. */
function streamed(chunks: number, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent++ === chunks) controller.close();
      else controller.enqueue(new Uint8Array(size).fill(0x20));
    },
  });
}

describe('readJsonBody [CONV-POST-JSON]', () => {
  it('parses JSON, and reads an empty or blank body as {}', async () => {
    expect(await readJsonBody(post('{"plan_id":"pro"}'), 1024)).toEqual({ ok: true, value: { plan_id: 'pro' } });
    expect(await readJsonBody(post(null), 1024)).toEqual({ ok: true, value: {} });
    expect(await readJsonBody(post(' \n\t'), 1024)).toEqual({ ok: true, value: {} });
  });

  it('refuses malformed JSON, a byte-order mark and bytes that are not UTF-8 JSON, with invalid_json', async () => {
    for (const body of ['{"plan_id": ', '\uFEFF{}', "{'a':1}", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])]) {
      expect(await readJsonBody(post(body), 1024)).toMatchObject({ ok: false, code: 'invalid_json' });
    }
  });

  it('refuses a body over the limit, by its declared length before reading it, or as it streams in', async () => {
    const declared = post('{}', { 'content-length': '5000' });
    expect(await readJsonBody(declared, 1024)).toMatchObject({ ok: false, code: 'payload_too_large' });
    expect(declared.bodyUsed, 'nothing was read').toBe(false);
    expect(await readJsonBody(post(streamed(3, 400)), 1024)).toMatchObject({ ok: false, code: 'payload_too_large' });
    expect(await readJsonBody(post(streamed(2, 400)), 1024)).toEqual({ ok: true, value: {} });
  });

  it('reads a body in a process whose stack-trace hook throws (vitest 4.1 with its module cache, where the fake is started in a global setup)', () => {
    // A process of its own: Node formats the stack of its "Reader released" error once per process, at the first read.
    const script = join(mkdtempSync(join(tmpdir(), 'json-body-')), 'read.mjs');
    writeFileSync(
      script,
      [
        "Error.prepareStackTrace = () => { throw new TypeError('code.charCodeAt is not a function'); };",
        `const { readJsonBody } = await import(${JSON.stringify(new URL('./json.ts', import.meta.url).href)});`,
        "const post = (body) => new Request('http://fake/v1/plans.get', { method: 'POST', body });",
        "console.log(JSON.stringify([await readJsonBody(post('{\"plan_id\":\"pro\"}'), 1024), await readJsonBody(post('{}'), 1)]));",
      ].join('\n'),
    );
    const ran = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: fileURLToPath(new URL('../../', import.meta.url)), encoding: 'utf8' });
    rmSync(dirname(script), { recursive: true, force: true });
    expect(JSON.parse(ran.stdout || 'null'), ran.stderr).toEqual([{ ok: true, value: { plan_id: 'pro' } }, expect.objectContaining({ ok: false, code: 'payload_too_large' })]);
  });
});

describe('nesting depth of request bodies', () => {
  const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

  it('counts arrays and objects, not brackets inside strings or escaped quotes', () => {
    expect(nestingDepth('1')).toBe(0);
    expect(nestingDepth('{"a":[{"b":[]}]}')).toBe(4);
    expect(nestingDepth('{"a":"[[[{{{","b":"\\"[[["}')).toBe(1);
    expect(nestingDepth(nested(5_000))).toBe(5_000);
  });

  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more with invalid_json, before parsing`, () => {
    expect(parseJsonBody(nested(MAX_JSON_DEPTH))).toMatchObject({ ok: true });
    expect(parseJsonBody(nested(MAX_JSON_DEPTH + 1))).toMatchObject({ ok: false, code: 'invalid_json', message: expect.stringContaining('nests') });
    expect(parseJsonBody(`[${nested(MAX_JSON_DEPTH)}]`)).toMatchObject({ ok: false, code: 'invalid_json' });
  });

  it('a body read from a request goes through the same bound', async () => {
    expect(await readJsonBody(post(nested(5_000)), 1024 * 1024)).toMatchObject({ ok: false, code: 'invalid_json' });
  });
});

describe('errorResponse [ERR-BODY-SHAPE]', () => {
  it('answers {message, code, env} as JSON, with the status the error table gives the code', async () => {
    for (const code of ['invalid_inputs', 'no_secret_key', 'customer_not_found', 'method_not_allowed', 'payload_too_large'] as const) {
      const response = errorResponse(code, `because ${code}`, 'live');
      expect(response.status).toBe(ERROR_CODES[code].status);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toEqual({ message: `because ${code}`, code, env: 'live' });
    }
  });
});
