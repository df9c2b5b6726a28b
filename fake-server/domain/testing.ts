/**
 * Support for the domain modules' unit tests: a tenant context on a frozen clock, handlers called
 * with inputs parsed by the spec's request schemas (defaults applied, as the router does), and the
 * code of a DomainError.
 */
import { beforeEach } from 'vitest';
import type { z } from 'zod';
import { type OperationName, operations } from '../../spec/operations.ts';
import { Clock } from '../clock.ts';
import { IdGenerator } from '../ids.ts';
import { TenantStore } from '../store/tenant-store.ts';
import { type DomainContext, DomainError, type OutputOf } from './context.ts';
import { handlers } from './handlers.ts';

export function testContext(now: number): DomainContext {
  return { store: new TenantStore('org', 'sandbox'), clock: new Clock({ now, frozen: true }), ids: new IdGenerator(1) };
}

/** Runs an operation's domain handler on a request body validated by the spec's request schema. */
export function callHandler<N extends OperationName>(ctx: DomainContext, name: N, body: z.input<(typeof operations)[N]['request']>): OutputOf<N> {
  const handler = handlers[name] as (ctx: DomainContext, input: unknown) => OutputOf<N>;
  return handler(ctx, operations[name].request.parse(body));
}

/** The features most domain tests start from: `messages` (consumable), `seats` (allocated), `sso` (boolean). */
export function createTestFeatures(ctx: DomainContext): void {
  callHandler(ctx, 'features.create', { feature_id: 'messages', name: 'Messages', type: 'metered', consumable: true, display: { singular: 'message', plural: 'messages' } });
  callHandler(ctx, 'features.create', { feature_id: 'seats', name: 'Seats', type: 'metered', consumable: false, display: { singular: 'seat', plural: 'seats' } });
  callHandler(ctx, 'features.create', { feature_id: 'sso', name: 'SSO', type: 'boolean' });
}

/** The code of the DomainError `run` throws; fails when it throws none. */
export function domainErrorCode(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
  throw new Error('expected a DomainError');
}

/**
 * For a test file: a fresh tenant before each test, on a frozen clock at `now`, prepared by `setup`;
 * `tenant.call(name, body)` runs an operation in it and `tenant.ctx` is its context.
 */
export function tenantPerTest(now: number, setup: (ctx: DomainContext) => void = () => {}) {
  const tenant = {
    ctx: testContext(now),
    call<N extends OperationName>(name: N, body: z.input<(typeof operations)[N]['request']>): OutputOf<N> {
      return callHandler(tenant.ctx, name, body);
    },
  };
  beforeEach(() => {
    tenant.ctx = testContext(now);
    setup(tenant.ctx);
  });
  return tenant;
}
