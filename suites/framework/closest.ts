/**
 * Closest matches of a mistyped name among the valid ones, for error messages that would otherwise
 * list hundreds of rule IDs: a few near names (edit distance, case ignored) or those the name is
 * part of, closest first.
 */
import { distance } from 'fastest-levenshtein';

/** At most `max` candidates near `name`, closest first; none when nothing is near. */
export function closestMatches(name: string, candidates: Iterable<string>, max = 3): string[] {
  const wanted = name.toLowerCase();
  const near: [string, number][] = [];
  for (const candidate of new Set(candidates)) {
    const lower = candidate.toLowerCase();
    // A name that holds the other (`PLAN-NAME` for `PLAN-NAME-MIN-LENGTH`) is a hint too, when there is no typo to suggest.
    const d = distance(wanted, lower);
    const contained = wanted.length >= 3 && (lower.includes(wanted) || wanted.includes(lower));
    if (d <= Math.max(2, Math.floor(wanted.length / 3))) near.push([candidate, d]);
    else if (contained) near.push([candidate, d + 100]);
  }
  near.sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]));
  // Names that merely hold it only when there is no near one.
  const typos = near.filter(([, d]) => d < 100);
  return (typos.length > 0 ? typos : near).slice(0, max).map(([c]) => c);
}

/** ` (did you mean a, b?)`, or nothing when no candidate is near. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const near = closestMatches(name, candidates);
  return near.length === 0 ? '' : ` (did you mean ${near.join(', ')}?)`;
}
