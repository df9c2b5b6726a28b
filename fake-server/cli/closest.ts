/** "Did you mean": the few candidates closest to a mistyped value, so a long list of valid values is a hint, not a wall. */

/** Edit distance (insertions, deletions, substitutions), ignoring case. */
function distance(a: string, b: string): number {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1)));
    previous = current;
  }
  return previous[y.length]!;
}

/** Up to `count` candidates: those containing `given` (case aside) first, the shortest first, then the nearest by edit distance. */
export function closest(given: string, candidates: readonly string[], count = 3): string[] {
  const needle = given.toLowerCase();
  const rank = (candidate: string) => (needle !== '' && candidate.toLowerCase().includes(needle) ? candidate.length - given.length - 1000 : distance(given, candidate));
  return [...candidates]
    .map((candidate) => ({ candidate, rank: rank(candidate) }))
    .sort((a, b) => a.rank - b.rank || a.candidate.localeCompare(b.candidate))
    .slice(0, count)
    .map(({ candidate }) => candidate);
}
