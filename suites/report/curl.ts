/**
 * A curl command that replays a recorded request. The request comes from the evidence log, where
 * every secret is already `[REDACTED]`; a redacted Authorization header becomes `$API_KEY`, so the
 * command runs as is with the key in the environment and never carries it. A replay script
 * (replay.ts) also stands variables for the target and the run's IDs.
 */
import { REDACTED, truncate, type ExchangeRequest } from '../framework/evidence.ts';

/** Headers curl sets itself, or that describe this one transfer rather than the request. */
const TRANSPORT_HEADERS = new Set(['content-length', 'host', 'connection', 'transfer-encoding', 'accept-encoding']);
/** Marks a body the evidence log cut (see `truncate`). */
const TRUNCATED = /… \[truncated, \d+ chars\]$/;

/** A piece of a shell word: literal text, or a shell variable. */
export type ShellPiece = { readonly text: string } | { readonly variable: string };

/** Literal text of a request → what stands for it in the command (a variable, possibly between literal parts). */
export type Substitution = readonly [literal: string, replacement: readonly ShellPiece[]];

export interface CurlOptions {
  readonly substitutions?: readonly Substitution[];
  /** Flags added after the method and URL (a replay's `-w`). */
  readonly flags?: readonly string[];
}

/** POSIX shell single quotes: nothing inside is interpreted. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** One argument of a printed command: as it is when the shell reads it so, else single-quoted. */
export function shellArg(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : shellQuote(text);
}

/** Characters that keep their meaning inside double quotes (`!` in an interactive bash). */
const DOUBLE_QUOTE_SPECIAL = /[$`\\"!]/;

/**
 * One shell word from literal text and variables: all in double quotes when no literal part needs
 * protecting from them (`"$BASE_URL/v1/plans.create"`), else literal parts single-quoted and
 * variables double-quoted, side by side (`'{"id":"conf_'"$RUN"'_plan_1"}'`).
 */
export function shellWord(pieces: readonly ShellPiece[]): string {
  if (pieces.every((p) => 'text' in p)) return shellQuote(pieces.map((p) => ('text' in p ? p.text : '')).join(''));
  const variable = (name: string, next: ShellPiece | undefined) => (next !== undefined && 'text' in next && /^\w/.test(next.text) ? `\${${name}}` : `$${name}`);
  if (pieces.every((p) => !('text' in p) || !DOUBLE_QUOTE_SPECIAL.test(p.text))) {
    return `"${pieces.map((p, i) => ('text' in p ? p.text : variable(p.variable, pieces[i + 1]))).join('')}"`;
  }
  return pieces.map((p) => ('text' in p ? (p.text === '' ? '' : shellQuote(p.text)) : `"\${${p.variable}}"`)).join('');
}

/** `text` cut into literal pieces and the replacements of every substitution found in it (earliest, then longest, first). */
export function substitute(text: string, substitutions: readonly Substitution[]): ShellPiece[] {
  const pieces: ShellPiece[] = [];
  let rest = text;
  for (;;) {
    let found: { at: number; literal: string; replacement: readonly ShellPiece[] } | undefined;
    for (const [literal, replacement] of substitutions) {
      const at = literal === '' ? -1 : rest.indexOf(literal);
      if (at >= 0 && (found === undefined || at < found.at || (at === found.at && literal.length > found.literal.length))) found = { at, literal, replacement };
    }
    if (found === undefined) break;
    if (found.at > 0) pieces.push({ text: rest.slice(0, found.at) });
    pieces.push(...found.replacement);
    rest = rest.slice(found.at + found.literal.length);
  }
  if (rest !== '' || pieces.length === 0) pieces.push({ text: rest });
  return merged(pieces);
}

/** Adjacent literal pieces joined. */
function merged(pieces: readonly ShellPiece[]): ShellPiece[] {
  const out: ShellPiece[] = [];
  for (const piece of pieces) {
    const last = out.at(-1);
    if (last !== undefined && 'text' in last && 'text' in piece) out[out.length - 1] = { text: last.text + piece.text };
    else out.push(piece);
  }
  return out;
}

const API_KEY: Substitution = [REDACTED, [{ variable: 'API_KEY' }]];

export function curlOf(request: ExchangeRequest, options: CurlOptions = {}): string {
  const substitutions = options.substitutions ?? [];
  const word = (text: string, extra: readonly Substitution[] = []) => shellWord(substitute(text, [...substitutions, ...extra]));
  const parts = ['curl', '-sS', '-X', request.method, word(request.url), ...(options.flags ?? [])];
  for (const [name, value] of Object.entries(request.headers)) {
    if (TRANSPORT_HEADERS.has(name.toLowerCase())) continue;
    // The key goes in from the environment: the scheme before it (`Bearer`) and anything the request added after it stay.
    parts.push('-H', word(`${name}: ${value}`, name.toLowerCase() === 'authorization' ? [API_KEY] : []));
  }
  let note = '';
  if (request.body !== undefined) {
    const text = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    if (TRUNCATED.test(text)) note = '  # the report cut this body: the command sends only its start';
    parts.push('--data-raw', word(truncate(text, 100_000)));
  }
  return `${parts.join(' ')}${note}`;
}
