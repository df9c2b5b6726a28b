/** Fan-out of independent calls: `size` at a time, so a scenario's setup of many holders costs rounds of calls, not one call after another. */

/** Runs `run` over `items`, `size` at a time (each batch after the one before), and gives its results in the order of `items`. */
export async function inBatches<T, R>(items: readonly T[], size: number, run: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let at = 0; at < items.length; at += size) results.push(...(await Promise.all(items.slice(at, at + size).map((item, i) => run(item, at + i)))));
  return results;
}
