/**
 * The /v1 router, built from the operation table: for each `POST /v1/<resource>.<action>` it checks
 * the key, reads `x-api-version`, validates the body with the spec's request schema, runs what the
 * clock has made due, calls the domain function and builds the reply. No path or shape is restated
 * here. It is synchronous and sees neither node's nor the web's request types, so the socket's fast
 * path and the in-process `fetch` share it.
 */
import type { z } from 'zod';
import type { Env } from '../spec/common.ts';
import { CONTROL_PREFIX, type ControlCallName } from '../spec/control-plane.ts';
import { callMutates, type OperationDef } from '../spec/operation.ts';
import { operationForPath, type OperationName } from '../spec/operations.ts';
import { type DomainContext, DomainError, type OperationHandlers, type TextHandlers } from './domain/context.ts';
import { runDue } from './domain/lifecycle.ts';
import type { ViewTexts } from './domain/view-texts.ts';
import { compatHint, recognisedClient } from './client-compat.ts';
import type { Fault } from './faults/fault.ts';
import { type BodyText, errorReply, jsonReply, jsonTextReply, parseJsonBody, type Reply } from './http/json.ts';
import type { RequestHead } from './http/request-head.ts';
import type { Tenants } from './tenants.ts';

export interface RouterOptions {
  readonly tenants: Tenants;
  readonly handlers: OperationHandlers;
  /**
   * Operations answered as JSON text instead (the same bytes, from the tenant's view texts). Only
   * for operations whose answer nothing rewrites: no fault or client compatibility wraps their
   * handler, no fault rewrites outputs, responses are not validated. A request answered in a
   * recognised client's mode uses them only where that mode leaves the handler as it is.
   */
  readonly textHandlers?: TextHandlers;
  /**
   * Request schemas that replace the spec's for some operations (a client-compatibility mode chosen
   * for the whole fake, `handlers` answering in it). Undefined when none was chosen: a request from
   * a published client, recognised by its User-Agent, is then answered in that client's mode.
   */
  readonly requestSchemas?: { readonly [N in OperationName]?: z.ZodType };
  readonly faults: readonly Fault[];
  /** Check every response against the spec before sending it; a mismatch is a fake bug, answered 500. */
  readonly validateResponses: boolean;
}

export const DEFAULT_API_VERSION = '2.4.0';

/** Decision 4: 2.4.0 and the earlier 2.x versions behave alike; partial forms pad ("2.3" is 2.3.0). */
export function parseApiVersion(header: string | null): string | undefined {
  if (header === null) return DEFAULT_API_VERSION;
  const match = /^2(?:\.(\d+))?(?:\.(\d+))?$/.exec(header.trim());
  if (!match || Number(match[1] ?? 0) > 4) return undefined;
  return `2.${Number(match[1] ?? 0)}.${Number(match[2] ?? 0)}`;
}

/** `path: message` per issue, as the reference formats zod errors. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  const parts = issues.map((issue) => `${issue.path.length === 0 ? 'input' : issue.path.join('.')}: ${issue.message}`);
  return parts.length === 1 ? parts[0]! : `[Validation Errors] ${parts.join('; ')}`;
}

/** Masks all but the first 15 characters of an unknown key, as the reference does. */
function maskKey(key: string): string {
  return key.slice(0, 15) + '*'.repeat(Math.max(0, key.length - 15));
}

/** The key of an `Authorization: Bearer <key>` header value. */
export function bearerOf(authorization: string | null): string | undefined {
  return /^bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}

export function bearerToken(request: Request): string | undefined {
  return bearerOf(request.headers.get('authorization'));
}

/**
 * Calls of the reference (and its client) that the fake does not serve, for which its control plane
 * holds the same data or does the same thing: a test that reaches for one learns where to look.
 */
const CONTROL_STAND_INS: Readonly<Record<string, { readonly call: ControlCallName; readonly what: string }>> = {
  'events.list': { call: 'events.list', what: 'the usage events it recorded are at' },
  'events.aggregate': { call: 'events.list', what: 'the usage events it recorded are at' },
  'customers.advance_test_clock': { call: 'clock.advance', what: "a tenant's clock moves forward at" },
};

/** The 404 message for a path outside the operation table: it names the operation, so a client call the fake does not serve is plain, and the control call that has its data when there is one. */
export function notServed(pathname: string): string {
  const name = pathname.startsWith('/v1/') ? pathname.slice('/v1/'.length) : undefined;
  if (name === undefined || !/^[A-Za-z_]+\.[A-Za-z_]+$/.test(name)) return `No operation at ${pathname}`;
  const standIn = Object.hasOwn(CONTROL_STAND_INS, name) ? CONTROL_STAND_INS[name] : undefined;
  const message = `The fake does not serve ${name} (POST ${pathname}): it implements the operations of interface.md only`;
  return standIn === undefined ? message : `${message}; ${standIn.what} POST ${CONTROL_PREFIX}/${standIn.call} (its control plane, with the same key)`;
}

export function createRouter(options: RouterOptions): (head: RequestHead, text: BodyText) => Reply {
  const { tenants, handlers, faults, validateResponses } = options;
  const clientOf = options.requestSchemas === undefined ? recognisedClient(handlers) : undefined;

  return function route(head: RequestHead, text: BodyText): Reply {
    const op = operationForPath(head.path);
    // Before a key is checked, errors say sandbox, as in the reference.
    let env: Env = 'sandbox';
    if (op === undefined) return errorReply('route_not_found', notServed(head.path), env);
    if (head.method !== 'POST') return errorReply('method_not_allowed', `${op.path} takes POST, not ${head.method}`, env, { allow: 'POST' });

    const key = bearerOf(head.header('authorization'));
    if (key === undefined) return errorReply('no_secret_key', 'Secret key not found in Authorization header', env);
    const tenant = tenants.open(key);
    if (tenant === undefined) return errorReply('invalid_secret_key', `Invalid secret key: ${maskKey(key)}`, env);
    env = tenant.env;

    const version = head.header('x-api-version');
    if (parseApiVersion(version) === undefined) return errorReply('invalid_api_version', `"${version}" is not a valid API version`, env);

    if (!text.ok) return errorReply(text.code, text.message, env);
    const body = parseJsonBody(text.text);
    if (!body.ok) return errorReply(body.code, body.message, env);
    const name = op.name as OperationName;
    const raw = faults.reduce((value, fault) => (fault.input ? fault.input(name, value) : value), body.value);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      return errorReply('invalid_inputs', `input: Invalid input: expected object, received ${Array.isArray(raw) ? 'array' : raw === null ? 'null' : typeof raw}`, env);
    }
    const client = clientOf?.(head.header('user-agent'));
    const requestSchema = (client?.requestSchemas ?? options.requestSchemas)?.[name];
    const parsed = (requestSchema ?? op.request).safeParse(raw);
    if (!parsed.success) return errorReply('invalid_inputs', formatIssues(parsed.error.issues) + (requestSchema === undefined ? compatHint(name, raw) : ''), env);

    const ctx: DomainContext = tenant;
    // A call that may change data leaves the tenant's view texts stale; with a fault, any call may.
    const changesData = faults.length > 0 || callMutates(op as OperationDef, parsed.data);
    try {
      if (runDue(ctx).length > 0) tenant.viewTexts.clear();
      const handler = (client?.handlers ?? handlers)[name] as (ctx: DomainContext, input: unknown) => unknown;
      const text = handler === handlers[name] ? (options.textHandlers?.[name] as ((ctx: DomainContext, input: unknown, texts: ViewTexts) => string) | undefined) : undefined;
      if (text !== undefined) return jsonTextReply(200, text(ctx, parsed.data, tenant.viewTexts));
      let output = handler(ctx, parsed.data);
      output = faults.reduce((value, fault) => (fault.output ? fault.output(name, value) : value), output);
      if (validateResponses) {
        const checked = op.response.safeParse(output);
        if (!checked.success) return errorReply('internal_error', `The fake answered ${name} off-spec: ${formatIssues(checked.error.issues)}`, env);
      }
      return jsonReply(200, output);
    } catch (error) {
      if (error instanceof DomainError) return errorReply(error.code, error.message, env, {}, error.status);
      throw error;
    } finally {
      if (changesData) tenant.viewTexts.clear();
    }
  };
}
