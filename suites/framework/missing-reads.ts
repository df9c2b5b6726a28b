/**
 * Which missing field a failed check compared (issue 17 item 2). A 200 answer that left out a
 * required field FAILs its shape rule; a later check that fails only because it compared that
 * field is BLOCKED by the shape rule, not failed a second time. Guessing from the failed values (any
 * `undefined` on either side) hid real deviations (an extra element in a list compared with `[]`) and
 * blamed the wrong answer, so the scenario's view of such an answer is watched instead: every read
 * of a left-out path (a property read, `in`, `hasOwnProperty`) is noted with the answer it came from,
 * and so is every copy of an object on the way to one (its keys enumerated).
 * Answers that match their schema are not wrapped at all.
 */
import type { Exchange } from './evidence.ts';

/**
 * A read of a path some 200 answer left out (`read`), or a copy of an object of such an answer
 * that lacks one (`copy`: its keys were enumerated, by a spread, a rest pattern, `Object.keys`…).
 */
export interface MissingRead {
  readonly kind: 'read' | 'copy';
  readonly exchange: Exchange;
  /** Dot path with indices as steps: `list.0.id` for a read; the copied object's path for a copy (`''` for the body). */
  readonly path: string;
}

/** `list[0].id` → `list.0.id`. */
export function dotPath(path: string): string {
  return path.replace(/\[(\d+)\]/g, '.$1').replace(/^\./, '');
}

/**
 * The required fields a 200 answer left out (its wire-schema issues where the body has no value),
 * as dot paths.
 */
export function missingPaths(exchange: Exchange): string[] {
  return (exchange.schemaIssues ?? [])
    .filter((i) => i.path !== '' && (/received undefined$/.test(i.message) || valueAt(exchange.response?.body, i.path) === undefined))
    .map((i) => dotPath(i.path));
}

/** The value at a path (`list[0].id` or `list.0.id`), undefined when any step is missing. */
export function valueAt(body: unknown, path: string): unknown {
  let value = body;
  for (const step of dotPath(path).split('.').filter((s) => s !== '')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

/** Where a watched object sits: the answer it belongs to and its path there (`''` for the body itself). */
export interface WatchedPlace {
  readonly exchange: Exchange;
  readonly path: string;
}

const places = new WeakMap<object, WatchedPlace>();

/** The place of a watched object (a value a check compared may be a whole answer, or part of one); undefined for anything else. */
export function watchedPlace(value: unknown): WatchedPlace | undefined {
  return value !== null && typeof value === 'object' ? places.get(value) : undefined;
}

/**
 * `body` with every read of a path in `missing` reported to `noted`; other reads are the body's own.
 * Objects on the way to a missing path are watched too (the same proxy every time, so identity holds).
 */
export function watchMissing<B>(body: B, exchange: Exchange, noted: (read: MissingRead) => void): B {
  const missing = new Set(missingPaths(exchange));
  if (missing.size === 0 || body === null || typeof body !== 'object') return body;
  const leadsToMissing = (path: string) => [...missing].some((m) => m.startsWith(`${path}.`));
  const proxies = new WeakMap<object, object>();
  const watch = (target: object, at: string): object => {
    const known = proxies.get(target);
    if (known) return known;
    const pathOf = (key: string) => (at === '' ? key : `${at}.${key}`);
    const note = (key: string | symbol) => {
      if (typeof key === 'string' && missing.has(pathOf(key))) noted({ kind: 'read', exchange, path: pathOf(key) });
    };
    const proxy = new Proxy(target, {
      get(object, key, receiver) {
        note(key);
        const value: unknown = Reflect.get(object, key, receiver);
        return typeof key === 'string' && value !== null && typeof value === 'object' && leadsToMissing(pathOf(key)) ? watch(value, pathOf(key)) : value;
      },
      has(object, key) {
        note(key);
        return Reflect.has(object, key);
      },
      getOwnPropertyDescriptor(object, key) {
        note(key);
        return Reflect.getOwnPropertyDescriptor(object, key);
      },
      ownKeys(object) {
        noted({ kind: 'copy', exchange, path: at });
        return Reflect.ownKeys(object);
      },
    });
    proxies.set(target, proxy);
    places.set(proxy, { exchange, path: at });
    return proxy;
  };
  return watch(body, '') as B;
}
