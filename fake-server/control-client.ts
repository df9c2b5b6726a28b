/**
 * A typed client for the fake's control plane (spec/control-plane.ts), for app teams' tests: one
 * key, one tenant. It needs only `fetch`, so it works against a fake in another process or, with
 * `fetch: fake.fetch`, against one in-process without a socket.
 */
import type { z } from 'zod';
import { CONTROL_PREFIX, type ControlCallName, controlCalls } from '../spec/control-plane.ts';

type Calls = typeof controlCalls;
export type ControlCallRequest<N extends ControlCallName> = z.input<Calls[N]['request']>;
export type ControlCallResponse<N extends ControlCallName> = z.output<Calls[N]['response']>;

export interface FakeControlOptions {
  /** The fake's base URL, e.g. `http://127.0.0.1:4010`. */
  readonly url: string;
  /** The secret key of the tenant to act on (or the fake's admin key, for calls over every tenant). */
  readonly key: string;
  /** Defaults to the global fetch; pass `fake.fetch` to skip the socket. */
  readonly fetch?: (request: Request) => Promise<Response>;
}

export class FakeControlError extends Error {
  override readonly name = 'FakeControlError';
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export class FakeControl {
  readonly #options: FakeControlOptions;

  constructor(options: FakeControlOptions) {
    this.#options = options;
  }

  /** Sends one control call and returns its checked answer; anything but 200 throws FakeControlError. */
  async call<N extends ControlCallName>(name: N, body: ControlCallRequest<N>): Promise<ControlCallResponse<N>> {
    const request = new Request(`${this.#options.url.replace(/\/+$/, '')}${CONTROL_PREFIX}/${name}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.#options.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const response = await (this.#options.fetch ?? fetch)(request);
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new FakeControlError(`${CONTROL_PREFIX}/${name} answered ${response.status} with a body that is not JSON`, response.status, text);
    }
    if (response.status !== 200) {
      const message = (parsed as { message?: unknown }).message;
      throw new FakeControlError(`${CONTROL_PREFIX}/${name} answered ${response.status}: ${typeof message === 'string' ? message : text}`, response.status, parsed);
    }
    const checked = (controlCalls[name].response as z.ZodType).safeParse(parsed);
    if (!checked.success) throw new FakeControlError(`${CONTROL_PREFIX}/${name} answered 200 with an unexpected body: ${checked.error.message}`, 200, parsed);
    return checked.data as ControlCallResponse<N>;
  }

  /** The tenant back to its start state, its clock back where it started. */
  async reset(): Promise<void> {
    await this.call('reset', {});
  }

  /** The tenant's clock time (ms). */
  async now(): Promise<number> {
    return (await this.call('clock.get', {})).now;
  }

  /** Moves the tenant's clock forward and runs what falls due (resets, renewals, expiries). */
  advance(ms: number): Promise<ControlCallResponse<'clock.advance'>> {
    return this.call('clock.advance', { ms });
  }

  /** A new tenant (organisation) of the same fake, and a control client for its sandbox key. */
  async createTenant(): Promise<{ readonly org: string; readonly sandboxKey: string; readonly liveKey: string; readonly control: FakeControl }> {
    const created = await this.call('tenants.create', {});
    return { org: created.org, sandboxKey: created.sandbox_key, liveKey: created.live_key, control: new FakeControl({ ...this.#options, key: created.sandbox_key }) };
  }

  /** Deletes this client's tenant, if `createTenant` made it. */
  async deleteTenant(): Promise<void> {
    await this.call('tenants.delete', {});
  }
}
