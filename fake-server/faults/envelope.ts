/** Broken variants of the envelope rules: conventions, authentication, versioning and error bodies. */
import type { z } from 'zod';
import type { ErrorBody, ErrorCode } from '../../spec/common.ts';
import { constraintProvenance, ownBoundRule, statedBound } from '../../spec/constraint-provenance.ts';
import { type OperationName, operationForPath, operations } from '../../spec/operations.ts';
import { bearerToken, parseApiVersion } from '../router.ts';
import type { Fault } from './fault.ts';

/** The request with its headers changed (the body, if any, is carried over). */
function withHeaders(request: Request, change: (headers: Headers) => void): Request {
  const headers = new Headers(request.headers);
  change(headers);
  return new Request(request, { headers });
}

/** An error answer of `code` rewritten by `rewrite`; any other response as it was. */
function rewritingError(code: ErrorCode, rewrite: (body: ErrorBody) => Response): (response: Response) => Promise<Response> {
  return async (response) => {
    if (response.status < 400) return response;
    const body = (await response.clone().json()) as ErrorBody;
    return body.code === code ? rewrite(body) : response;
  };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** Renames `from` to `to` in the plain object `body`. */
function renamed(body: unknown, from: string, to: string): unknown {
  if (typeof body !== 'object' || body === null || !(from in body)) return body;
  const { [from]: value, ...rest } = body as Record<string, unknown>;
  return { ...rest, [to]: value };
}

const PLAN_ANSWERS: ReadonlySet<OperationName> = new Set(['plans.create', 'plans.get', 'plans.update']);

/** Minor units (cents) instead of the major unit: the amounts of a preview's line items times 100 (the entries' and overall totals stay right). */
function inMinorUnits(preview: z.output<(typeof operations)['billing.preview_multi_update']['response']>) {
  const cents = (amount: number) => amount * 100;
  return {
    ...preview,
    subscriptions: preview.subscriptions.map((entry) => ({
      ...entry,
      line_items: entry.line_items.map((line) => ({ ...line, subtotal: cents(line.subtotal), total: cents(line.total) })),
    })),
  };
}

/**
 * A lenient server's repair of a body: each value the request schema finds outside a numeric bound
 * is clamped to it, and each value outside an enumeration replaced by its first option; only for
 * the constraints `documented` says (stated by interface.md on a documented operation, or not).
 */
function clampedIntoBounds(documented: boolean) {
  return (operation: OperationName, body: unknown): unknown => {
    const statedByDocument = (path: readonly PropertyKey[]) =>
      operations[operation].provenance === 'documented' &&
      constraintProvenance(operation, path.filter((segment) => typeof segment !== 'symbol')) === 'documented' &&
      statedBound(operation, path) !== undefined;
    // A bound with a rule of its own part (LIST-LIMIT-BOUNDS, FEAT-TYPE-ENUM, …) is that rule's fault to break.
    return clamped(operation, body, (path) => ownBoundRule(operation, path) === undefined && statedByDocument(path) === documented);
  };
}

function clamped(operation: OperationName, body: unknown, repairs: (path: readonly PropertyKey[]) => boolean): unknown {
  const parsed = operations[operation].request.safeParse(body);
  if (parsed.success || typeof body !== 'object' || body === null) return body;
  const repaired = structuredClone(body) as Record<PropertyKey, unknown>;
  for (const issue of parsed.error.issues) {
    const replacement =
      issue.code === 'too_big' && (issue.origin === 'number' || issue.origin === 'int')
        ? Number(issue.maximum)
        : issue.code === 'too_small' && (issue.origin === 'number' || issue.origin === 'int')
          ? Number(issue.minimum) + (issue.inclusive ? 0 : 1)
          : issue.code === 'invalid_value'
            ? issue.values[0]
            : issue.path.length > 0 && statedBound(operation, issue.path)
              ? statedBound(operation, issue.path)!.within
              : undefined;
    if (replacement === undefined || issue.path.length === 0 || !repairs(issue.path)) continue;
    let parent = repaired;
    for (const segment of issue.path.slice(0, -1)) parent = parent[segment] as Record<PropertyKey, unknown>;
    // A missing field is outside no bound: only a value sent is repaired (filling required fields is another defect).
    if (parent[issue.path.at(-1)!] === undefined) continue;
    parent[issue.path.at(-1)!] = replacement;
  }
  return repaired;
}

/** Successful calls of mutating operations, documented ones or setup ones, answered 201 instead of 200. */
function answering201(documented: boolean) {
  return (response: Response, request: Request): Response => {
    const operation = operationForPath(new URL(request.url).pathname);
    const mutating = operation !== undefined && Boolean(operation.mutates) && (operation.provenance === 'documented') === documented;
    return response.status === 200 && mutating ? new Response(response.body, { status: 201, headers: response.headers }) : response;
  };
}

export const envelopeFaults: readonly Fault[] = [
  {
    rule: 'CONV-POST-JSON',
    breaks: 'a body sent as application/json is not read (the fake expects form encoding), so every field of it is missing',
    request: (request) =>
      /^application\/json\b/i.test(request.headers.get('content-type') ?? '') ? new Request(request.url, { method: request.method, headers: request.headers }) : request,
  },
  {
    rule: 'CONV-SNAKE-CASE-REQUEST',
    breaks: 'plans.create reads `freeTrial` (camelCase) and ignores its snake_case wire name `free_trial`',
    input: (operation, body) => (operation === 'plans.create' ? renamed(body, 'free_trial', 'freeTrial') : body),
  },
  {
    rule: 'CONV-TIMESTAMPS-MS',
    breaks: 'created_at of new customers, plans and entities is in seconds, not milliseconds',
    output: (operation, body) => {
      if (!['customers.get_or_create', 'plans.create', 'entities.create'].includes(operation)) return body;
      const created = body as { created_at: number };
      return { ...created, created_at: Math.floor(created.created_at / 1000) };
    },
  },
  {
    rule: 'CONV-CONSISTENT-SPELLING',
    breaks: 'plans.get answers `add_on` in its documented spelling `addOn`, every other field in snake_case',
    output: (operation, body) => (operation === 'plans.get' ? renamed(body, 'add_on', 'addOn') : body),
  },
  {
    rule: 'CONV-MONEY-MAJOR-UNITS',
    breaks: "billing.preview_multi_update reports its line items' amounts (subtotal, total) in minor units (cents)",
    output: (operation, body) => (operation === 'billing.preview_multi_update' ? inMinorUnits(body as never) : body),
  },
  {
    rule: 'CONV-RESPONSE-SNAKE-CASE',
    breaks: "a plan's free trial answers `onEnd` instead of `on_end`",
    output: (operation, body) => {
      const plan = body as { free_trial?: unknown };
      return PLAN_ANSWERS.has(operation) && plan.free_trial !== undefined ? { ...plan, free_trial: renamed(plan.free_trial, 'on_end', 'onEnd') } : body;
    },
  },
  {
    rule: 'AUTH-BEARER-REQUIRED',
    breaks: "a request without an Authorization header is served as the tenant of the fake's first key",
    request: (request, fake) => (request.headers.has('authorization') ? request : withHeaders(request, (h) => h.set('authorization', `Bearer ${fake.firstKey}`))),
  },
  {
    rule: 'AUTH-SECRET-KEY',
    breaks: "only the key prefix is checked: any `am_sk_test_…` token opens the tenant of the fake's first key",
    request: (request, fake) => (bearerToken(request)?.startsWith('am_sk_test_') ? withHeaders(request, (h) => h.set('authorization', `Bearer ${fake.firstKey}`)) : request),
  },
  {
    rule: 'AUTH-API-VERSION-HEADER',
    breaks: 'a request carrying the x-api-version header is refused (the fake reads the version from another header)',
    request: (request) => (request.headers.has('x-api-version') ? withHeaders(request, (h) => h.set('x-api-version', 'x-api-version-not-supported')) : request),
  },
  {
    rule: 'AUTH-TENANT-ISOLATION',
    breaks: 'the environment is ignored: a live key opens the sandbox tenant of its organisation',
    request: (request) =>
      bearerToken(request)?.startsWith('am_sk_live_')
        ? withHeaders(request, (h) => h.set('authorization', `Bearer ${bearerToken(request)!.replace('am_sk_live_', 'am_sk_test_')}`))
        : request,
  },
  {
    rule: 'AUTH-NO-KEY-CODE',
    breaks: 'a request without a key is refused with code `unauthorized` instead of `no_secret_key`',
    response: rewritingError('no_secret_key', (body) => json(401, { ...body, code: 'unauthorized' })),
  },
  {
    rule: 'AUTH-UNKNOWN-KEY-CODE',
    breaks: 'an unknown secret key is refused with 403 `forbidden` instead of 401 `invalid_secret_key`',
    response: rewritingError('invalid_secret_key', (body) => json(403, { ...body, code: 'forbidden' })),
  },
  {
    rule: 'VER-HEADER-DEFAULT',
    breaks: 'a request without x-api-version is served as another version: plan answers show the plan as inactive',
    response: async (response, request) => {
      const operation = operationForPath(new URL(request.url).pathname)?.name as OperationName | undefined;
      if (response.status !== 200 || operation === undefined || !PLAN_ANSWERS.has(operation) || request.headers.has('x-api-version')) return response;
      const plan = (await response.json()) as { active?: boolean };
      return json(200, { ...plan, active: !plan.active });
    },
  },
  {
    rule: 'VER-HEADER-DEFAULT-SERVED',
    breaks: 'a request without x-api-version is refused instead of being served with the default',
    request: (request) => (request.headers.has('x-api-version') ? request : withHeaders(request, (h) => h.set('x-api-version', 'missing'))),
  },
  {
    rule: 'VER-2-4-0-ACCEPTED',
    breaks: 'x-api-version 2.4.0 is refused as unknown (as the 2.3.0 reference does)',
    request: (request) => (request.headers.get('x-api-version')?.trim() === '2.4.0' ? withHeaders(request, (h) => h.set('x-api-version', '2.4.0-unknown')) : request),
  },
  {
    rule: 'VER-INVALID-VERSION',
    breaks: 'an x-api-version the fake does not know is ignored and the request served as 2.4.0',
    request: (request) => (parseApiVersion(request.headers.get('x-api-version')) === undefined ? withHeaders(request, (h) => h.delete('x-api-version')) : request),
  },
  {
    rule: 'ERR-SUCCESS-200',
    breaks: 'successful calls of the documented mutating operations answer 201 Created',
    response: answering201(true),
  },
  {
    rule: 'ERR-SUCCESS-200-SETUP',
    breaks: 'successful calls of the mutating setup operations (customers, entities, billing.attach, …) answer 201 Created',
    response: answering201(false),
  },
  {
    rule: 'ERR-OUT-OF-BOUNDS-OR-ENUM',
    breaks: 'on documented operations, a value outside a bound or enumeration interface.md states (and no rule of its own part proves) is replaced by one within it, instead of being refused',
    input: clampedIntoBounds(true),
  },
  {
    rule: 'ERR-OUT-OF-BOUNDS-REFERENCE',
    breaks: 'a value outside a bound or enumeration interface.md does not state (the reference\'s, or the schemas\' where the document states none) is clamped or replaced instead of being refused',
    input: clampedIntoBounds(false),
  },
  {
    rule: 'ERR-BODY-SHAPE',
    breaks: 'error bodies are wrapped as `{error: {message, code}}`',
    response: async (response) => {
      if (response.status < 400) return response;
      const { message, code } = (await response.json()) as ErrorBody;
      return json(response.status, { error: { message, code } });
    },
  },
  {
    rule: 'ERR-VALIDATION-CODE',
    breaks: 'a body that fails validation is refused with 422 `validation_error`',
    response: rewritingError('invalid_inputs', (body) => json(422, { ...body, code: 'validation_error' })),
  },
  {
    rule: 'ERR-CUSTOMER-NOT-FOUND',
    breaks: 'an unknown customer is refused with 400 `invalid_request` instead of 404 `customer_not_found`',
    response: rewritingError('customer_not_found', (body) => json(400, { ...body, code: 'invalid_request' })),
  },
];
