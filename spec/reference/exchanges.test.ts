import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ErrorBody, IN_USE_ERROR } from '../common.ts';
import { operations } from '../operations.ts';
import { explains, KNOWN_DIFFERENCES } from './differences.ts';
import { checkExchange, loadExchanges, type RecordedExchange } from './exchanges.ts';

const exchanges = loadExchanges();

describe('recorded reference exchanges against the spec', () => {
  it('loads all 162 recorded exchanges from fixtures/', () => {
    expect(exchanges).toHaveLength(162);
  });

  it.each(exchanges.map((exchange) => [exchange.file, exchange] as [string, RecordedExchange]))(
    '%s: every mismatch with the spec is a listed known difference',
    (_file, exchange) => {
      const unexplained = checkExchange(exchange).filter((mismatch) => !KNOWN_DIFFERENCES.some((d) => explains(d, mismatch)));
      expect(unexplained).toEqual([]);
    },
  );

  it('every listed known difference is still shown by each exchange it names', () => {
    const found = exchanges.flatMap(checkExchange);
    const stale = KNOWN_DIFFERENCES.flatMap((difference) =>
      difference.exchanges
        .filter((file) => !found.some((mismatch) => mismatch.file === file && explains(difference, mismatch)))
        .map((file) => `${difference.id}: ${file}`),
    );
    expect(stale).toEqual([]);
  });

  it('covers a 200 response of every documented operation the reference serves', () => {
    const served = new Set(exchanges.filter((e) => e.response.status === 200).map((e) => e.operation));
    const documented = Object.values(operations).filter((op) => op.provenance === 'documented').map((op) => op.name);
    // subscriptions.list and purchases.list do not exist at the recorded reference commit (files 153, 154).
    expect(documented.filter((name) => !served.has(name)).sort()).toEqual(['purchases.list', 'subscriptions.list']);
  });

  it('every error code the reference answered with is in the spec error table, with the same status', () => {
    const errors = exchanges.filter((e) => e.response.status >= 400).map((e) => ({ file: e.file, status: e.response.status, body: ErrorBody.parse(e.response.body) }));
    const unknown = errors.filter(({ file, body, status }) => {
      const entry = (ERROR_CODES as Record<string, { status: number } | undefined>)[body.code];
      // 401 no_auth_header is the reference's answer to an unknown route; the fake answers 404 (decision 5).
      if (body.code === 'no_auth_header' || body.code === 'duplicate_idempotency_key') return false;
      // A refusal because the object is still in use answers its code with another status (spec/common.ts).
      if (body.code === IN_USE_ERROR.code && status === IN_USE_ERROR.status) return file !== IN_USE_ERROR.source.slice('exchanges/'.length);
      return entry?.status !== status;
    });
    expect(unknown).toEqual([]);
  });
});

describe('the exchange checker can fail', () => {
  it('reports a missing required field of a 200 response', () => {
    const exchange = exchanges.find((e) => e.file.startsWith('062-'))!;
    const broken = structuredClone(exchange);
    delete (broken.response.body as { list: Record<string, unknown>[] }).list[0]!['remaining'];
    expect(checkExchange(broken)).toEqual([
      { file: exchange.file, direction: 'response', path: 'list.*.remaining', message: expect.any(String) },
    ]);
  });

  it('reports a body the reference refused that the spec would accept', () => {
    const exchange = exchanges.find((e) => e.file.startsWith('021-'))!;
    const broken = structuredClone(exchange);
    (broken.request.body as { name: string }).name = 'Named';
    expect(checkExchange(broken).map((m) => m.direction)).toEqual(['request']);
  });
});
