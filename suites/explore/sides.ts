/**
 * The two sides of a lockstep run: the target (over HTTP through the suite's validating client, so
 * every exchange is recorded and redacted like a scenario's), and the reference model, a fake built
 * in-process for each program (`createFakeApp`, no socket). Both answer the same calls, as
 * `{status, body}` plus, for the target, the client's findings about the answer's shape.
 */
import { CONTROL_PREFIX, type ControlCallName } from '../../spec/control-plane.ts';
import type { ErrorBody } from '../../spec/common.ts';
import { operations, type OperationName } from '../../spec/operations.ts';
import type { FakeApp } from '../../fake-server/app.ts';
import { answerInProcess } from '../../fake-server/http/in-process.ts';
import type { Servable } from '../../fake-server/http/node-adapter.ts';
import type { Client, RequestOptions } from '../framework/client.ts';
import { ControlPlaneError, type ControlClient } from '../framework/control-client.ts';
import type { Exchange } from '../framework/evidence.ts';
import type { HeaderOverrides } from '../framework/http.ts';
import type { Answer } from './compare.ts';

export type Headers = HeaderOverrides;

export interface SideAnswer extends Answer {
  /** The recorded exchange (target only). */
  readonly exchange?: Exchange;
}

export interface Side {
  /** An operation of the interface; `headers` override the standard ones (an envelope variant, another tenant's key). */
  call(operation: OperationName, body: unknown, options?: { readonly headers?: Headers }): Promise<SideAnswer>;
  /** Two calls of operations that change nothing, sent pipelined on one connection where the side is reached over HTTP (else both at once). */
  pair(first: PairedCall, second: PairedCall): Promise<readonly [SideAnswer, SideAnswer]>;
  /** A call of the fake's control plane; `headers` override its key (the other environment's clock). */
  control(name: ControlCallName, body: unknown, options?: { readonly headers?: Headers }): Promise<{ readonly status: number; readonly body: unknown }>;
}

/** One call of a pipelined pair. */
export interface PairedCall {
  readonly operation: OperationName;
  readonly body: unknown;
  readonly headers?: Headers;
}

/**
 * Who sends a call, where it is not the program's own plain caller: the other environment of the
 * same organisation (its live key, where the program has a tenant of its own), or the published
 * client (its User-Agent). Neither changes what the document says the answer is, so each call is
 * compared like a plain one, its differences charged to their own owners.
 */
export interface Caller {
  readonly environment?: 'live';
  readonly agent?: 'published-client';
}

/** The published client as a caller. */
export const PUBLISHED_CLIENT: Caller = { agent: 'published-client' };

/** The key sent as a bearer token, as a header override (an envelope variant may change the scheme's case). */
export function bearer(key: string, scheme = 'Bearer'): Headers {
  return { authorization: `${scheme} ${key}` };
}

/**
 * The reference model: a fake in this process, called without a socket, through its fast path `reply`
 * where it has one (a wrapper that rewrites raw HTTP sets `reply` undefined, as a fault that does so).
 */
export function appSide(app: Pick<FakeApp, 'fetch'> | Servable, key: string, apiVersion: string): Side {
  const send = async (path: string, body: unknown, headers: Headers = {}, version: string | null = apiVersion) => {
    const merged: Record<string, string | null> = { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'x-api-version': version };
    for (const [name, value] of Object.entries(headers)) {
      for (const existing of Object.keys(merged)) if (existing.toLowerCase() === name.toLowerCase()) delete merged[existing];
      merged[name] = value;
    }
    const present = Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== null));
    const sent = body === undefined ? '' : JSON.stringify(body);
    let status: number;
    let text: string;
    if ('reply' in app) {
      ({ status, body: text } = await answerInProcess(app, 'POST', path, new Headers(present), sent));
    } else {
      const response = await app.fetch(new Request(`http://model.invalid${path}`, { method: 'POST', headers: present, body: sent }));
      status = response.status;
      text = await response.text();
    }
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON: kept as text.
    }
    return { status, body: parsed };
  };
  const call = (operation: OperationName, body: unknown, headers?: Headers) => send(operations[operation].path, body, headers);
  return {
    call: (operation, body, options = {}) => call(operation, body, options.headers),
    pair: async (first, second) => Promise.all([call(first.operation, first.body, first.headers), call(second.operation, second.body, second.headers)]),
    // The control plane is not the interface: no version header, so a fault of the envelope leaves it alone.
    control: (name, body, options = {}) => send(`${CONTROL_PREFIX}/${name}`, body, options.headers ?? {}, null),
  };
}

/** The target through the suite's client: answers validated against the spec, exchanges recorded. */
export function clientSide(client: Client<typeof operations, typeof ErrorBody>, control: ControlClient | undefined, headers: Headers = {}): Side {
  const call = async (operation: OperationName, body: unknown, options: RequestOptions = {}): Promise<SideAnswer> => {
    const result = await client.call(operation, body as never, { ...options, headers: { ...headers, ...options.headers } });
    if (result.ok) {
      return { status: 200, body: result.body, schemaIssues: result.schemaIssues, ...(result.exchange.mixedSpellings ? { mixedSpellings: result.exchange.mixedSpellings } : {}), exchange: result.exchange };
    }
    return { status: result.status, body: result.body, errorBodyIssues: result.errorBodyIssues, exchange: result.exchange };
  };
  return {
    call: (operation, body, options = {}) => call(operation, body, options.headers ? { headers: options.headers } : {}),
    async pair(first, second) {
      // One connection that sends the second request before the first is answered (both change nothing, so undici may pipeline them).
      const connection = client.transport.pipelinedConnection();
      const options = (paired: PairedCall): RequestOptions => ({ ...(paired.headers ? { headers: paired.headers } : {}), dispatcher: connection.dispatcher, pipelined: true, retry: false });
      try {
        return await Promise.all([call(first.operation, first.body, options(first)), call(second.operation, second.body, options(second))]);
      } finally {
        await connection.close();
      }
    },
    async control(name, body, options = {}) {
      if (control === undefined) return { status: 404, body: { message: 'the target has no control plane' } };
      try {
        return { status: 200, body: await control.call(name, body as never, { headers: { ...headers, ...options.headers } }) };
      } catch (error) {
        if (error instanceof ControlPlaneError) return { status: error.status, body: error.exchange.response?.body };
        throw error;
      }
    },
  };
}
