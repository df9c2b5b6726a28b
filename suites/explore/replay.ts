/**
 * Replaying a finding: the program of its file (findings.ts), call by call, against a target and a
 * fresh reference model in lockstep, every difference kept; and the same program as a shell script
 * of curls for any target, for a vendor to run without this suite.
 *
 * A replay gives the program fresh IDs (the file's ID prefix is swapped for a new one), starts it
 * at the same position of the calendar (the next date of the same kind), shifts the absolute
 * times of its requests (lock expiries, forced expiries) by as much, and finds each forced record
 * again by what it holds.
 */
import { shellQuote } from '../report/curl.ts';
import type { OperationName } from '../../spec/operations.ts';
import type { Difference } from './compare.ts';
import { UNKNOWN_KEY, VARIANTS, variantHeaders, variantQuestion, type VariantName } from './command.ts';
import type { RuleId } from '../../spec/rules/catalogue.ts';
import type { CalendarStart } from './calendar.ts';
import { Lockstep, type CallSpec, type Step } from './lockstep.ts';
import { WorldState } from './world.ts';
import { liveRecords, selectRecord } from './parts/control.ts';
import { ownedOnly } from './owned.ts';
import { PUBLISHED_CLIENT_AGENT } from '../../spec/reference/differences.ts';
import type { Caller } from './sides.ts';
import { modelFor, type ExploreTarget } from './targets.ts';

export interface ReplayOutcome {
  readonly differences: readonly { readonly step: number; readonly operation: string; readonly difference: Difference }[];
  /** The steps the replay made, in the file's form. */
  readonly calls: number;
  readonly reproduced: boolean;
}

/** Absolute times a generated request carries (the rest of a program's times are relative). */
const TIME_FIELDS = new Set(['expires_at', 'at']);

function rewrite(value: unknown, from: string, to: string, shift: number, key = ''): unknown {
  if (typeof value === 'string') return value.replaceAll(from, to);
  if (typeof value === 'number') return TIME_FIELDS.has(key) ? value + shift : value;
  if (Array.isArray(value)) return value.map((item) => rewrite(item, from, to, shift));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v, from, to, shift, k)]));
  return value;
}

/** A program to run again: its calls as they were logged, where its IDs and its clock started. */
export interface Replayable {
  readonly steps: readonly Omit<Step, 'exchange'>[];
  readonly idPrefix: string;
  readonly start: { readonly kind: CalendarStart; readonly at: number; readonly environment?: 'live' };
  readonly apiVersion: string;
}

/** A finding as a replay and its script read it (the fields of findings.ts's FindingFile they need). */
export interface ReplayableFinding extends Replayable {
  readonly rule: string;
  readonly level: string;
  readonly seed: number;
  /** Index of the diverging step. */
  readonly at: number;
  readonly differences: readonly Difference[];
  readonly start: Replayable['start'] & { readonly isolated: boolean };
}

/**
 * Runs logged calls again, in lockstep against `target` and a fresh model, every difference kept.
 * Returns the new log (its steps hold the target's new exchanges) and, per replayed call, the index
 * of its step in the new log.
 */
export async function replaySteps(program: Replayable, target: ExploreTarget, stopped?: () => boolean): Promise<{ lockstep: Lockstep; replayed: Map<number, number>; start: number; prefix: string }> {
  const opened = await target.open(program.start.kind, program.start.environment);
  const model = modelFor(opened, program.apiVersion);
  const prefix = idPrefixOf(target.ns.scope(`replay-${Date.now()}-${++replays}`));
  const lockstep = new Lockstep({
    model: model.side,
    target: opened.side,
    otherKeys: model.otherKey && opened.otherKey ? { model: model.otherKey, target: opened.otherKey } : undefined,
    world: new WorldState(opened.start),
    timeToleranceMs: opened.exact ? 0 : 5 * 60_000,
    found: new Set(),
    collect: true,
    // In a shared tenant, only what the replay made is compared (as in the exploration).
    ...(opened.isolated ? {} : { ownedOnly: (operation, body) => ownedOnly(operation, body, (id) => id.startsWith(`${prefix}_`)) }),
  });
  const shift = opened.start - program.start.at;
  const fresh = <T>(value: T): T => rewrite(value, program.idPrefix, prefix, shift) as T;
  const replayed = new Map<number, number>();
  /** The listings walked around a write, by the write's step. */
  const arounds = new Map(program.steps.filter((s) => s.around !== undefined).map((s) => [s.around!.write, s]));
  const specOf = (step: Omit<Step, 'exchange'>): CallSpec => {
    const variant = step.variant as VariantName | undefined;
    const definition = variant === undefined ? undefined : VARIANTS[variant];
    const headers = variant && definition ? { model: variantHeaders(variant, model.key, model.otherKey, program.apiVersion)!, target: variantHeaders(variant, opened.key, opened.otherKey, program.apiVersion)! } : undefined;
    const question = step.question ?? {};
    return {
      command: step.command,
      operation: step.operation as OperationName,
      body: fresh(step.request) as Record<string, unknown>,
      ...(question.intent ? { intent: question.intent as RuleId } : {}),
      ...(question.codeRule ? { codeRule: question.codeRule as RuleId } : {}),
      ...(question.tags ? { tags: question.tags } : {}),
      ...(question.customerId ? { customerId: fresh(question.customerId) } : {}),
      ...(question.eitherCode ? { eitherCode: question.eitherCode } : {}),
      ...(step.caller ? { caller: step.caller } : {}),
      ...(headers && definition && variant && variant !== 'plain' ? { headers, variant: variantQuestion(variant) } : {}),
    };
  };
  try {
    for (const step of program.steps) {
      if (step.resolve) continue;
      if (stopped?.()) throw new ReplayStopped();
      if (step.operation === 'control:events.list') {
        await lockstep.events(step.command, fresh(step.question?.customerId ?? ''));
        replayed.set(step.index, lockstep.steps.length - 1);
        continue;
      }
      if (step.operation.startsWith('control:')) {
        const name = step.operation.slice('control:'.length) as 'clock.advance' | 'records.force_state';
        const body = fresh(step.request) as Record<string, unknown>;
        if (name === 'records.force_state' && step.select) {
          const select = fresh(step.select);
          const [m, t] = [selectRecord(await liveRecords(lockstep, 'replay', 'model', select.customer_id), select), selectRecord(await liveRecords(lockstep, 'replay', 'target', select.customer_id), select)];
          if (m === undefined || t === undefined) continue;
          await lockstep.control(step.command, name, { model: { ...body, record_id: m.id }, target: { ...body, record_id: t.id } }, step.question?.tags ?? [], select);
        } else {
          await lockstep.control(step.command, name, { model: body, target: body }, step.question?.tags ?? [], undefined, step.caller);
        }
        replayed.set(step.index, lockstep.steps.length - 1);
        continue;
      }
      if (replayed.has(step.index)) continue;
      const at = lockstep.steps.length;
      const around = arounds.get(step.index);
      const second = step.pipelined === 'first' ? program.steps.find((s) => s.index > step.index && s.pipelined === 'second') : undefined;
      if (around?.around) {
        // The write a listing was walked around: the listing's first page, the write, the rest of the walk.
        await lockstep.walkAround(specOf(around), specOf(step), { field: around.around.field, values: around.around.values.map(fresh) });
        replayed.set(step.index, at).set(around.index, lockstep.steps.length - 1);
      } else if (second) {
        await lockstep.pair(specOf(step), specOf(second));
        replayed.set(step.index, at).set(second.index, at + 1);
      } else {
        await lockstep.call(specOf(step));
        // A call logs exactly its own step.
        replayed.set(step.index, at);
      }
    }
  } finally {
    await opened.close();
  }
  return { lockstep, replayed, start: opened.start, prefix };
}

let replays = 0;

/** A replay given up part-way (`stopped`): the exploration's time is over. */
export class ReplayStopped extends Error {
  override readonly name = 'ReplayStopped';
}

/** Runs a finding's program again against `target` and a fresh model; the finding is reproduced when the diverging call differs again. */
export async function replayFinding(file: ReplayableFinding, target: ExploreTarget): Promise<ReplayOutcome> {
  const { lockstep, replayed } = await replaySteps(file, target);
  const diverging = replayed.get(file.at);
  const differences = lockstep.steps.flatMap((step, i) => step.differences.map((difference) => ({ step: i + 1, operation: step.operation, difference })));
  const reproduced = diverging !== undefined && (lockstep.steps[diverging]?.differences.length ?? 0) > 0;
  return { differences, calls: replayed.size, reproduced };
}

/** What every ID a namespace scope makes starts with (`<prefix>_<run>_<scope>`). */
export function idPrefixOf(ns: { id(kind: string): string }): string {
  return ns.id('prefix').replace(/_prefix_\d+$/, '');
}

/** A POSIX shell script of curls replaying the program against `$BASE_URL` with `$API_KEY` (keys never written into it). */
export function curlScript(file: ReplayableFinding & { readonly target?: { readonly baseUrl?: string } }): string {
  const main = file.differences[0];
  const foundOn = file.target?.baseUrl;
  const lines = [
    '#!/bin/sh',
    `# Replays an exploration finding: ${file.rule} (${file.level})${main ? ` at ${main.path || main.key}` : ''}, seed ${file.seed}.`,
    `# Needs API_KEY${foundOn === undefined ? ' and BASE_URL' : `; BASE_URL defaults to the target it was found on, ${foundOn}`}; NS (letters, digits, _) prefixes the IDs it creates (default: a fresh one).`,
    '# Compare each answer with the model\'s in the finding\'s JSON file (steps[].model).',
    'set -eu',
    ...(foundOn === undefined ? [] : [`BASE_URL="\${BASE_URL:-${foundOn.replace(/["$`\\]/g, '\\$&')}}"`]),
    ': "${BASE_URL:?set BASE_URL}" "${API_KEY:?set API_KEY}"',
    'NS="${NS:-conf_replay_$(date +%s)}"',
    `V="\${API_VERSION:-${file.apiVersion}}"`,
    'KEY="$API_KEY"',
    'OTHER="${OTHER_TENANT_API_KEY:-}"',
    '# call PATH BODY [AUTHORIZATION] [VERSION] [CONTENT-TYPE] [USER-AGENT]: one POST, its status and body printed',
    'call() {',
    '  curl -sS -X POST "$BASE_URL$1" -H "authorization: ${3-Bearer $KEY}" -H "x-api-version: ${4-$V}" -H "content-type: ${5-application/json}" -H "user-agent: ${6-curl}" --data-raw "$2" -w \'\\n[%{http_code}]\\n\'',
    '}',
    'field() { node -e \'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s.slice(0,s.lastIndexOf("\\n[")))[process.argv[1]];process.stdout.write(String(v))})\' "$1"; }',
  ];
  if (file.start.isolated) {
    // A program in the live environment sends the tenant's live key as its own, the sandbox one as the other.
    const [own, other] = file.start.environment === 'live' ? ['live_key', 'sandbox_key'] : ['sandbox_key', 'live_key'];
    lines.push(
      `# A tenant of its own (the fake's control plane)${file.start.environment === 'live' ? ', the program in its live environment' : ''}, its clock frozen where the program started.`,
      'TENANT=$(call /_fake/tenants.create \'{}\')',
      `KEY=$(printf '%s' "$TENANT" | field ${own})`,
      `OTHER=$(printf '%s' "$TENANT" | field ${other})`,
      `call /_fake/clock.set '{"now":${file.start.at},"frozen":true}'`,
    );
  }
  const body = (value: unknown) => shellQuote(JSON.stringify(value)).replaceAll(file.idPrefix, `'"$NS"'`);
  let n = 0;
  for (const step of file.steps) {
    if (step.resolve) continue;
    n++;
    const mark = step.index === file.at ? ' (differs)' : '';
    lines.push(`echo '# ${n}. ${step.operation}${step.variant ? ` [${step.variant}]` : ''}${mark}'`);
    if (step.operation === 'control:records.force_state' && step.select) {
      const s = step.select;
      const filter = `const r=JSON.parse(s.slice(0,s.lastIndexOf("\\n["))).list.filter(r=>r.plan_id===${JSON.stringify(s.plan_id)}&&r.entity_id===${JSON.stringify(s.entity_id)}).sort((a,b)=>a.started_at-b.started_at)[${s.nth}];process.stdout.write(r?r.id:"")`;
      lines.push(
        `RID=$(call /v1/subscriptions.list ${body({ customer_id: s.customer_id, statuses: ['active', 'scheduled'], limit: 200 })} | node -e ${shellQuote(`let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{${filter}})`).replaceAll(file.idPrefix, `'"$NS"'`)})`,
        `call /_fake/records.force_state "{\\"record_id\\":\\"$RID\\",\\"state\\":\\"${(step.request as { state: string }).state}\\"${(step.request as { at?: number }).at === undefined ? '' : `,\\"at\\":${(step.request as { at: number }).at}`}}"`,
      );
      continue;
    }
    const path = step.operation.startsWith('control:') ? `/_fake/${step.operation.slice('control:'.length)}` : `/v1/${step.operation}`;
    lines.push(`call ${path} ${body(step.request)}${step.caller ? callerArgs(step.caller) : variantArgs(step.variant as VariantName | undefined)}`);
  }
  if (file.start.isolated) lines.push("call /_fake/tenants.delete '{}'");
  return `${lines.join('\n')}\n`;
}

/** The extra arguments of `call` for a caller other than the program's plain one (the other environment, the published client). */
function callerArgs(caller: Caller): string {
  return ` "Bearer ${caller.environment === 'live' ? '$OTHER' : '$KEY'}" "$V" "application/json"${caller.agent === 'published-client' ? ` ${shellQuote(PUBLISHED_CLIENT_AGENT)}` : ''}`;
}

/** The extra arguments of `call` for an envelope variant. */
function variantArgs(variant: VariantName | undefined): string {
  switch (variant) {
    case undefined:
    case 'plain':
      return '';
    case 'charset':
      return ' "Bearer $KEY" "$V" "application/json; charset=utf-8"';
    case 'media-type-case':
      return ' "Bearer $KEY" "$V" "Application/JSON"';
    case 'scheme-case':
      return ' "bearer $KEY"';
    case 'scheme-space':
      return ' "Bearer   $KEY"';
    case 'header-case':
      return ' "Bearer $KEY"';
    case 'no-version':
      return ' "Bearer $KEY" ""';
    case 'bad-version':
      return ' "Bearer $KEY" "9.9.9"';
    case 'no-key':
      return ' ""';
    case 'unknown-key':
      return ` "Bearer ${UNKNOWN_KEY}"`;
    case 'other-tenant':
      return ' "Bearer $OTHER"';
    case 'no-key-bad-version':
      return ' "" "9.9.9"';
    case 'unknown-key-bad-version':
      return ` "Bearer ${UNKNOWN_KEY}" "9.9.9"`;
  }
}
