/**
 * What every domain function receives: the tenant's store, the clock and the ID generator. Domain
 * functions are plain functions over this context; they never see HTTP.
 */
import type { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../spec/common.ts';
import type { OperationName, Operations } from '../../spec/operations.ts';
import type { Clock } from '../clock.ts';
import type { IdGenerator } from '../ids.ts';
import type { TenantStore } from '../store/tenant-store.ts';

export interface DomainContext {
  readonly store: TenantStore;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/**
 * A rule violation or a missing object, answered with the error body; its status comes from the error
 * table, unless the reference answers that case with another one (a refusal because the object is
 * still in use: `IN_USE_ERROR`).
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly status: number = ERROR_CODES[code].status,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export function fail(code: ErrorCode, message: string, status?: number): never {
  throw new DomainError(code, message, status);
}

/** The request body after validation (defaults applied) and the response body, for an operation. */
export type InputOf<N extends OperationName> = z.output<Operations[N]['request']>;
export type OutputOf<N extends OperationName> = z.input<Operations[N]['response']>;

export type OperationHandler<N extends OperationName> = (ctx: DomainContext, input: InputOf<N>) => OutputOf<N>;
export type OperationHandlers = { readonly [N in OperationName]: OperationHandler<N> };
