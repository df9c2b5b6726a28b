import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { bearerToken, formatIssues, notServed, parseApiVersion } from './router.ts';

describe('parseApiVersion [VER-HEADER-DEFAULT, VER-2-4-0-ACCEPTED, VER-INVALID-VERSION]', () => {
  it('reads a missing header as 2.4.0, and pads the 2.x versions up to 2.4', () => {
    expect(parseApiVersion(null)).toBe('2.4.0');
    expect(['2.4.0', '2.3.0', '2.3', '2', ' 2.1 ', '2.0.1'].map(parseApiVersion)).toEqual(['2.4.0', '2.3.0', '2.3.0', '2.0.0', '2.1.0', '2.0.1']);
  });

  it('knows no version after 2.4, none outside 2.x, and nothing that is not a version', () => {
    for (const header of ['2.5.0', '3', '9.9.9', '1.2.0', 'latest', '2025-05-05', '', '2.4.0.1', '2.x']) expect(parseApiVersion(header), header).toBeUndefined();
  });
});

describe('bearerToken [AUTH-BEARER-REQUIRED]', () => {
  const token = (authorization?: string) => bearerToken(new Request('http://fake/v1/plans.get', authorization === undefined ? {} : { headers: { authorization } }));

  it('takes the one token after the Bearer scheme', () => {
    expect(token('Bearer am_sk_test_abc')).toBe('am_sk_test_abc');
    expect(token('bearer   am_sk_test_abc  ')).toBe('am_sk_test_abc');
  });

  it('finds none without the header, with another scheme, or with no single token', () => {
    for (const authorization of [undefined, '', 'Bearer', 'Basic am_sk_test_abc', 'Bearer a b', 'am_sk_test_abc']) expect(token(authorization), String(authorization)).toBeUndefined();
  });
});

describe('formatIssues [ERR-VALIDATION-CODE]', () => {
  const issues = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error!.issues;

  it('names the path of one issue, `input` for the root, and lists several as the reference does', () => {
    const schema = z.object({ limit: z.int().max(200), items: z.array(z.object({ feature_id: z.string() })) });
    expect(formatIssues(issues(schema, { limit: 5, items: [{}] }))).toBe('items.0.feature_id: Invalid input: expected string, received undefined');
    expect(formatIssues(issues(schema, 'x'))).toBe('input: Invalid input: expected object, received string');
    expect(formatIssues(issues(schema, { limit: 201, items: 3 }))).toBe(
      '[Validation Errors] limit: Too big: expected number to be <=200; items: Invalid input: expected array, received number',
    );
  });
});

describe('notServed: the 404 of a path outside the operation table', () => {
  it('names the operation the fake does not serve', () => {
    expect(notServed('/v1/customers.update')).toBe('The fake does not serve customers.update (POST /v1/customers.update): it implements the operations of interface.md only');
    expect(notServed('/v2/whatever')).toBe('No operation at /v2/whatever');
  });

  it('names the control call that holds the data of an unserved read, when there is one', () => {
    expect(notServed('/v1/events.list')).toBe(
      'The fake does not serve events.list (POST /v1/events.list): it implements the operations of interface.md only; the usage events it recorded are at POST /_fake/events.list (its control plane, with the same key)',
    );
    expect(notServed('/v1/events.aggregate')).toContain('the usage events it recorded are at POST /_fake/events.list');
    expect(notServed('/v1/customers.advance_test_clock')).toContain("a tenant's clock moves forward at POST /_fake/clock.advance");
    expect(notServed('/v1/invoices.list')).not.toContain('/_fake/');
  });
});
