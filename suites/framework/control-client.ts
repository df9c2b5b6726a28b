/**
 * A typed client for the fake's control plane (`POST /_fake/<call>`, spec/control-plane.ts), on the
 * same connection pool, headers, timeouts and evidence log as the public client. The control plane
 * is test machinery, not the interface: a bad answer is a ControlPlaneError, never a conformance
 * failure.
 */
import type { z } from 'zod';
import { CONTROL_PREFIX, controlCalls, type ControlCallName } from '../../spec/control-plane.ts';
import { toIssues, type RequestOptions } from './client.ts';
import type { Exchange, Issue } from './evidence.ts';
import { TransportError, type Transport, type TransportScope } from './http.ts';

type Calls = typeof controlCalls;
export type ControlRequest<N extends ControlCallName> = z.input<Calls[N]['request']>;
export type ControlResponse<N extends ControlCallName> = z.output<Calls[N]['response']>;

export class ControlPlaneError extends Error {
  override readonly name = 'ControlPlaneError';
  constructor(
    message: string,
    readonly status: number,
    readonly issues: readonly Issue[],
    readonly exchange: Exchange,
  ) {
    super(message);
  }
}

export type ProbeResult =
  | { readonly available: true; readonly health: ControlResponse<'health'> }
  | { readonly available: false; readonly reason: string };

export class ControlClient {
  readonly transport: Transport;

  constructor(transport: Transport) {
    this.transport = transport;
  }

  with(scope: TransportScope): ControlClient {
    return new ControlClient(this.transport.with(scope));
  }

  /** Sends one control call; returns its parsed answer, or throws ControlPlaneError (or TransportError). */
  async call<N extends ControlCallName>(name: N, body: ControlRequest<N>, options: RequestOptions = {}): Promise<ControlResponse<N>> {
    const schema: z.ZodType = controlCalls[name].response;
    const path = `${CONTROL_PREFIX}/${name}`;
    const { value, exchange } = await this.transport.send({ label: `control:${name}`, path, body: JSON.stringify(body), ...options }, (res) => {
      const parsed = res.status === 200 ? schema.safeParse(res.body) : undefined;
      const schemaIssues = parsed && !parsed.success ? toIssues(parsed.error) : [];
      return { value: { status: res.status, body: res.body, parsed, schemaIssues }, annotations: { schemaIssues } };
    });
    if (value.parsed === undefined) {
      throw new ControlPlaneError(`POST ${path} answered ${value.status}: ${JSON.stringify(value.body) ?? ''}`.slice(0, 500), value.status, [], exchange);
    }
    if (!value.parsed.success) {
      const detail = value.schemaIssues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ');
      throw new ControlPlaneError(`POST ${path} answered 200 with an unexpected body: ${detail}`, 200, value.schemaIssues, exchange);
    }
    return value.parsed.data as ControlResponse<N>;
  }

  /** Asks `POST /_fake/health` once, without retries; says why when the target has no control plane. */
  async probe(timeoutMs: number): Promise<ProbeResult> {
    try {
      return { available: true, health: await this.call('health', {}, { timeoutMs, retry: false }) };
    } catch (error) {
      if (error instanceof ControlPlaneError && error.status !== 200) return { available: false, reason: `POST ${CONTROL_PREFIX}/health answered ${error.status}` };
      if (error instanceof ControlPlaneError) return { available: false, reason: `POST ${CONTROL_PREFIX}/health answered 200, but not as the fake's control plane does` };
      if (error instanceof TransportError && error.kind === 'timeout') {
        return { available: false, reason: `POST ${CONTROL_PREFIX}/health did not answer within ${timeoutMs} ms` };
      }
      if (error instanceof TransportError) return { available: false, reason: `POST ${CONTROL_PREFIX}/health failed: ${error.exchange.error ?? error.message}` };
      throw error;
    }
  }
}

/** A control client sharing `client`'s connection pool, settings and evidence log. */
export function createControlClient(client: { readonly transport: Transport }): ControlClient {
  return new ControlClient(client.transport);
}
