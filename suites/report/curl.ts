/**
 * A curl command that replays a recorded request. The request comes from the evidence log, where
 * every secret is already `[REDACTED]`; a redacted Authorization header becomes `$API_KEY`, so the
 * command runs as is with the key in the environment and never carries it.
 */
import { REDACTED, truncate, type ExchangeRequest } from '../framework/evidence.ts';

/** Headers curl sets itself, or that describe this one transfer rather than the request. */
const TRANSPORT_HEADERS = new Set(['content-length', 'host', 'connection', 'transfer-encoding', 'accept-encoding']);
/** Marks a body the evidence log cut (see `truncate`). */
const TRUNCATED = /… \[truncated, \d+ chars\]$/;

/** POSIX shell single quotes: nothing inside is interpreted. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export function curlOf(request: ExchangeRequest): string {
  const parts = ['curl', '-sS', '-X', request.method, shellQuote(request.url)];
  for (const [name, value] of Object.entries(request.headers)) {
    if (TRANSPORT_HEADERS.has(name.toLowerCase())) continue;
    if (name.toLowerCase() === 'authorization' && value.includes(REDACTED)) {
      // Double quotes so the shell expands the variable; the rest of the value is the scheme, e.g. `Bearer`.
      parts.push('-H', `"${name}: ${value.replaceAll(REDACTED, '$API_KEY').replaceAll(/["\\`]/g, '\\$&')}"`);
    } else {
      parts.push('-H', shellQuote(`${name}: ${value}`));
    }
  }
  let note = '';
  if (request.body !== undefined) {
    const text = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    if (TRUNCATED.test(text)) note = '  # the report cut this body: the command sends only its start';
    parts.push('--data-raw', shellQuote(truncate(text, 100_000)));
  }
  return `${parts.join(' ')}${note}`;
}
