/**
 * The replay script of a failing rule: the calls of the scenario where it failed, from the first
 * (its setup) to the one behind the verdict, as a POSIX shell script of curl commands. The run's
 * cleanup removed what the scenario made, so a lone curl of the failing request no longer shows
 * anything; the script makes it all again:
 * - the key is `$API_KEY` (never written: the evidence is redacted before this sees it);
 * - the target is `$BASE_URL`, by default the run's;
 * - the run's part of every ID it made (`conf_<run>_…`, and the `conf<run>…` of codes) is `$RUN`,
 *   fresh for each replay, so the script also runs on the target the run used, where the objects it
 *   could not delete still hold the old IDs;
 * - a value the target made up (a cursor, a record ID) is marked with the call that answered it.
 */
import type { ReplayCall } from '../framework/evidence.ts';
import { curlOf, type Substitution } from './curl.ts';

export interface ReplayFacts {
  readonly rule: string;
  /** The rule's verdict in the scenario (FAIL or ERROR). */
  readonly status: string;
  readonly scenario: string;
  readonly title: string;
  /** The run's target; the script's default for `$BASE_URL`. */
  readonly baseUrl?: string;
  readonly seed?: number;
  /** The first line of the verdict's message. */
  readonly message?: string;
  /** Sequence numbers of the calls behind the verdict: the script ends with the last of them (else with the scenario's last call). */
  readonly behind?: readonly number[];
}

/** A namespaced ID: `<prefix>_<run>_<scope>_<kind>_<n>` (suites/framework/namespace.ts). */
const NAMESPACED_ID = /(?<![A-Za-z0-9])([A-Za-z0-9]{1,16})_([a-z0-9]{6})_[a-z0-9]{5}_[A-Za-z0-9]+_\d+(?![A-Za-z0-9])/g;

/** The script, or undefined when the scenario made no call. */
export function replayScript(calls: readonly ReplayCall[], facts: ReplayFacts): string | undefined {
  const last = facts.behind !== undefined && facts.behind.length > 0 ? Math.max(...facts.behind) : undefined;
  const replayed = last === undefined ? calls : calls.filter((c) => c.seq <= last);
  if (replayed.length === 0) return undefined;
  const behind = new Set(facts.behind ?? []);
  const namespace = namespaceOf(replayed);
  const substitutions: Substitution[] = [
    ...(facts.baseUrl === undefined ? [] : [[facts.baseUrl, [{ variable: 'BASE_URL' }]] as const]),
    ...(namespace === undefined
      ? []
      : ([
          [`${namespace.prefix}_${namespace.run}_`, [{ text: `${namespace.prefix}_` }, { variable: 'RUN' }, { text: '_' }]],
          [`${namespace.prefix}${namespace.run}`, [{ text: namespace.prefix }, { variable: 'RUN' }]],
        ] as const)),
  ];
  const cut = last !== undefined && calls.at(-1)!.seq < last;
  const lines = [
    '#!/bin/sh',
    `# Replays ${facts.rule} (${facts.status}): scenario ${facts.scenario}, "${oneLine(facts.title)}"${facts.seed === undefined ? '' : `, seed ${facts.seed}`}.`,
    ...(facts.message ? [`# ${facts.status}: ${oneLine(facts.message)}`] : []),
    `# ${replayed.length} call(s), from the scenario's first${cut ? ` (the report keeps its first ${calls.length}; the verdict came later)` : ''}. Each prints its answer, then its HTTP status.`,
    '# Usage: API_KEY=<secret key of the target> [BASE_URL=<target>] [RUN=<6 letters or digits>] sh replay.sh',
    'set -u',
    ': "${API_KEY:?set API_KEY to a secret key of the target}"',
    ...(facts.baseUrl === undefined ? [] : [`BASE_URL="\${BASE_URL:-${facts.baseUrl.replace(/["$`\\]/g, '\\$&')}}"`]),
    ...(namespace === undefined
      ? []
      : [`# IDs of the run were ${namespace.prefix}_${namespace.run}_…; a fresh run part keeps the replay clear of what the run left on the target.`, `RUN="\${RUN:-$(LC_ALL=C tr -dc 'a-z0-9' </dev/urandom | head -c 6)}"`]),
  ];
  replayed.forEach((call, i) => {
    const got = call.status === undefined ? 'no answer' : `the run got ${call.status}`;
    lines.push('', `# ${i + 1}. ${call.label}: ${got}${behind.has(call.seq) ? `; ${facts.rule} ${facts.status} here` : ''}`);
    for (const from of call.fromAnswers ?? []) {
      const index = replayed.findIndex((c) => c.seq === from.seq);
      lines.push(`#    ${JSON.stringify(from.value)} below is the answer of call ${index + 1} at ${from.path}: on another target, use what that call answers there`);
    }
    lines.push(curlOf(call.request, { substitutions, flags: ['-w', `'\\n=> HTTP %{http_code}\\n'`] }));
  });
  return `${lines.join('\n')}\n`;
}

/** The run's namespace in these calls: the prefix and run part most of their namespaced IDs share. */
function namespaceOf(calls: readonly ReplayCall[]): { prefix: string; run: string } | undefined {
  const counts = new Map<string, number>();
  for (const call of calls) {
    const text = `${call.request.url} ${typeof call.request.body === 'string' ? call.request.body : JSON.stringify(call.request.body ?? '')}`;
    for (const match of text.matchAll(NAMESPACED_ID)) counts.set(`${match[1]}_${match[2]}`, (counts.get(`${match[1]}_${match[2]}`) ?? 0) + 1);
  }
  const [best] = [...counts].sort((a, b) => b[1] - a[1]);
  if (best === undefined) return undefined;
  const [prefix, run] = best[0].split('_') as [string, string];
  return { prefix, run };
}

function oneLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
