/**
 * Failure messages in the suite's own words (issue 19 item 6): what the target did, the field, the
 * value expected and the value seen, instead of the matcher's wording ("expected false to be true //
 * Object.is equality"). And operands made safe to carry anywhere: a verdict crosses vitest's worker
 * boundary by structured clone, which refuses what `expect.any(Number)` and its kind hold.
 */

/** At most this many differences are listed in one message. */
const MAX_DIFFERENCES = 5;
const MAX_VALUE_CHARS = 200;

interface AsymmetricMatcher {
  asymmetricMatch(other: unknown): boolean;
  toAsymmetricMatcher?(): string;
  toString(): string;
}

function isAsymmetricMatcher(value: unknown): value is AsymmetricMatcher {
  return value !== null && typeof value === 'object' && typeof (value as { asymmetricMatch?: unknown }).asymmetricMatch === 'function';
}

/** How an asymmetric matcher prints: `Any<Number>`, `StringMatching /x/`, `ArrayContaining [2]`. */
function matcherText(matcher: AsymmetricMatcher): string {
  if (typeof matcher.toAsymmetricMatcher === 'function') return matcher.toAsymmetricMatcher();
  const sample = (matcher as { sample?: unknown }).sample;
  return sample === undefined ? matcher.toString() : `${matcher.toString()} ${show(sample)}`;
}

/**
 * `value` as plain data any structured clone (and JSON) takes: asymmetric matchers as their printed
 * form, functions and symbols as text, bigints as decimal text, Maps and Sets as arrays, Dates as ISO
 * text, errors as `{name, message}`, cycles as `[Circular]`, and anything exotic (a Proxy, a class
 * instance) copied through its enumerable properties.
 */
export function printable(value: unknown, seen: Set<object> = new Set()): unknown {
  if (value === null || value === undefined) return value;
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return value;
    case 'bigint':
      return `${value}n`;
    case 'symbol':
      return value.toString();
    case 'function':
      return `[Function ${value.name || 'anonymous'}]`;
  }
  const object = value as object;
  if (isAsymmetricMatcher(object)) return matcherText(object);
  if (seen.has(object)) return '[Circular]';
  if (object instanceof Date) return Number.isNaN(object.getTime()) ? 'Invalid Date' : object.toISOString();
  if (object instanceof Error) return { name: object.name, message: object.message };
  if (object instanceof RegExp) return object.toString();
  seen.add(object);
  try {
    if (Array.isArray(object)) return object.map((item) => printable(item, seen));
    if (object instanceof Map) return [...object].map(([k, v]) => [printable(k, seen), printable(v, seen)]);
    if (object instanceof Set) return [...object].map((item) => printable(item, seen));
    return Object.fromEntries(Object.entries(object).map(([key, inner]) => [key, printable(inner, seen)]));
  } finally {
    seen.delete(object);
  }
}

/** A value as a message shows it: JSON-like, strings quoted, `undefined` spelled out, cut at 200 characters. */
export function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (isAsymmetricMatcher(value)) return matcherText(value);
  let text: string;
  try {
    text = JSON.stringify(printable(value)) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

/** One place where the value seen differs from the one expected. */
export interface Difference {
  /** `list[0].status`; empty for the whole value. */
  readonly path: string;
  readonly expected: unknown;
  readonly actual: unknown;
}

function container(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !isAsymmetricMatcher(value);
}

function sameLeaf(actual: unknown, expected: unknown): boolean {
  if (isAsymmetricMatcher(expected)) return expected.asymmetricMatch(actual);
  return Object.is(actual, expected);
}

/**
 * Where `actual` differs from `expected`, leaf by leaf. Arrays of different lengths differ as a
 * whole (listing which elements are extra would guess at their order). `partial`: only the keys
 * `expected` names count (toMatchObject).
 */
export function differencesOf(actual: unknown, expected: unknown, partial = false, path = ''): Difference[] {
  if (!container(actual) || !container(expected) || Array.isArray(actual) !== Array.isArray(expected)) {
    return sameLeaf(actual, expected) ? [] : [{ path, expected, actual }];
  }
  if (Array.isArray(actual) && Array.isArray(expected)) {
    if (actual.length !== expected.length) return [{ path, expected, actual }];
    return actual.flatMap((item, i) => differencesOf(item, expected[i], partial, `${path}[${i}]`));
  }
  const keys = partial ? Object.keys(expected) : [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
  return keys.flatMap((key) => differencesOf(actual[key], expected[key], partial, path === '' ? key : `${path}.${key}`));
}

function listed(differences: readonly Difference[]): string {
  const shown = differences.slice(0, MAX_DIFFERENCES).map((d) => `${d.path === '' ? '' : `${d.path}: `}expected ${show(d.expected)}, saw ${show(d.actual)}`);
  const more = differences.length - shown.length;
  return `${shown.join('; ')}${more > 0 ? `; and ${more} more difference${more === 1 ? '' : 's'}` : ''}`;
}

/** The relations chai words its messages with, and how the suite says them (`e`: the expected operand, shown). */
const RELATIONS: readonly (readonly [RegExp, (e: string, a: string) => string])[] = [
  [/ to be greater than or equal to /, (e, a) => `expected at least ${e}, saw ${a}`],
  [/ to be less than or equal to /, (e, a) => `expected at most ${e}, saw ${a}`],
  [/ to be (?:greater|above) (?:than )?/, (e, a) => `expected more than ${e}, saw ${a}`],
  [/ to be (?:less|below) (?:than )?/, (e, a) => `expected less than ${e}, saw ${a}`],
  [/ to have a length of /, (e, a) => `expected ${e} item(s), saw ${a}`],
];

/** chai's `expected <x> to include <y>` and kin, which carry no usable operands. */
const INCLUSIONS: readonly (readonly [RegExp, (a: string, e: string) => string])[] = [
  [/^expected (.+) (?:to not|not to) (?:include|contain) (.+)$/s, (a, e) => `expected no ${e}, saw ${a}`],
  [/^expected (.+) to (?:include|contain) (.+)$/s, (a, e) => `expected ${e} among ${a}`],
  [/^expected (.+) (?:to not|not to) be (null|undefined)$/s, (_a, e) => `expected a value, saw ${e}`],
  [/^expected (.+) to be (null|undefined|true|false|NaN)$/s, (a, e) => `expected ${e}, saw ${a}`],
  [/^expected (.+) to be defined$/s, (a) => `expected a value, saw ${a}`],
  [/^expected (.+) to be truthy$/s, (a) => `expected a value that is set (truthy), saw ${a}`],
  [/^expected (.+) to be falsy$/s, (a) => `expected a value that is unset (falsy), saw ${a}`],
];

/** Where the author's own message (`expect(x, 'the id sent')`) ends and chai's begins. */
function splitMessage(message: string): { readonly own: string | undefined; readonly matcher: string } {
  const first = message.split('\n')[0] ?? message;
  const at = first.lastIndexOf(': expected ');
  if (first.startsWith('expected ')) return { own: undefined, matcher: first };
  if (at < 0) return { own: first, matcher: '' };
  return { own: first.slice(0, at), matcher: first.slice(at + 2) };
}

/**
 * The message of a failed assertion in the suite's own words: the author's own text (what was
 * checked), then what was expected and what the target gave, field by field for objects.
 * Messages thrown by the suite itself (`expected 200, got 404 …`) are kept as they are.
 */
export function inOwnWords(error: { readonly message: string; readonly actual?: unknown; readonly expected?: unknown; readonly operator?: unknown }): string {
  if ((error as { ownWords?: unknown }).ownWords === true) return error.message;
  const { own, matcher } = splitMessage(error.message);
  const prefix = own === undefined ? '' : `${own}: `;
  if (matcher === '') return error.message.replace(/ \/\/ Object\.is equality$/m, '');
  const hasOperands = 'actual' in error && 'expected' in error;
  const negated = /^expected .+ (?:not to|to not) /s.test(matcher);
  if (hasOperands && !negated) {
    const equality = / to (?:be|equal|deeply equal|strictly equal|match object) /.test(matcher) && !/ to be (?:greater|less|above|below|defined|truthy|falsy|NaN|an? )/.test(matcher);
    if (equality) {
      const differences = differencesOf(error.actual, error.expected, / to match object /.test(matcher));
      if (differences.length > 0) return `${prefix}${listed(differences)}`;
    }
    for (const [relation, say] of RELATIONS) if (relation.test(matcher)) return `${prefix}${say(show(error.expected), show(error.actual))}`;
  }
  for (const [pattern, say] of INCLUSIONS) {
    const match = pattern.exec(matcher);
    if (match) return `${prefix}${say(match[1]!, match[2]!)}`;
  }
  if (negated && hasOperands) return `${prefix}expected anything but ${show(error.expected)}, saw ${show(error.actual)}`;
  return `${prefix}${matcher.replace(/ \/\/ Object\.is equality$/, '')}`;
}

/** An assertion error whose message is already in the suite's words (inOwnWords keeps it). */
export class OwnAssertion extends Error {
  override readonly name = 'AssertionError';
  readonly ownWords = true;
  constructor(
    message: string,
    readonly expected: unknown,
    readonly actual: unknown,
  ) {
    super(message);
  }
}
