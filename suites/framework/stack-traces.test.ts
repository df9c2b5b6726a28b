import { afterEach, describe, expect, it } from 'vitest';
import { tolerateStackTraceHook } from './stack-traces.ts';

const before = Error.prepareStackTrace;
afterEach(() => {
  Error.prepareStackTrace = before;
});

describe('a stack-trace hook that throws (vite module runner with vitest 4.1 module cache)', () => {
  it('formats the stack as V8 gives it instead of throwing, once wrapped; wrapping twice wraps once', () => {
    Error.prepareStackTrace = () => {
      throw new TypeError('code.charCodeAt is not a function');
    };
    expect(() => new Error('the fake answered 500').stack).toThrow('code.charCodeAt');
    tolerateStackTraceHook();
    const wrapped = Error.prepareStackTrace;
    tolerateStackTraceHook();
    expect(Error.prepareStackTrace).toBe(wrapped);
    const stack = new Error('the fake answered 500').stack!;
    expect(stack).toMatch(/^Error: the fake answered 500\n {4}at /);
    expect(stack).toContain('stack-traces.test.ts');
  });

  it('leaves a hook that works as it is', () => {
    Error.prepareStackTrace = (error: Error) => `mapped: ${error.message}`;
    tolerateStackTraceHook();
    expect(new Error('x').stack).toBe('mapped: x');
  });
});
