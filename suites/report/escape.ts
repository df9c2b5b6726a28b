/**
 * Escapers for text the target controls (URLs, headers, bodies, error messages) and anything else
 * the renderers print. Every renderer sends every string through one of these; nothing from a
 * report reaches HTML, Markdown or XML unescaped.
 */

/** HTML text and attribute values (double-quoted). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Markdown inline text: markup characters are backslash-escaped, HTML is neutralised (GitHub renders
 * some of it), and line breaks become spaces so a value cannot start a heading or a table row.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\r?\n|\r/g, ' ')
    .replace(/[\\`*_[\]<>|~]/g, '\\$&')
    .replace(/&/g, '&amp;');
}

/** A Markdown code span holding any text: a fence longer than any run of backticks inside it. */
export function markdownCode(text: string): string {
  const flat = text.replace(/\r?\n|\r/g, ' ');
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat === '' ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** A fenced Markdown code block: the fence is longer than any run of backticks inside. */
export function markdownBlock(text: string, info = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${info}\n${text}\n${fence}`;
}

/**
 * XML 1.0 text and attribute values: markup characters escaped, and characters the format forbids
 * (controls other than tab, line feed and carriage return, lone surrogates, U+FFFE/U+FFFF) removed.
 */
export function escapeXml(text: string): string {
  return stripXmlForbidden(text).replace(/[&<>"']/g, (c) => XML_ENTITIES[c]!);
}

const XML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export function stripXmlForbidden(text: string): string {
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '');
}

/**
 * A code span inside a Markdown table cell. GitHub and GitLab split a row on `|` before they read
 * code spans, so a `|` inside one is written `\|` there (and shown as `|`).
 */
export function markdownCellCode(text: string): string {
  return markdownCode(text).replaceAll('|', '\\|');
}

/**
 * A sentence of interface.md as Markdown text (not in a table cell): its `code spans` as code, the
 * rest escaped. Backticks that do not pair up as single-backtick spans are all shown as text.
 */
export function markdownSentence(text: string): string {
  if (/``/.test(text) || (text.match(/`/g) ?? []).length % 2 === 1) return escapeMarkdown(text);
  const parts = text.split(/`([^`\r\n]+)`/);
  return parts.map((part, i) => (i % 2 === 0 ? escapeMarkdown(part) : markdownCode(part))).join('');
}

/** HTML element text (not attribute values): only `&`, `<` and `>` need escaping there. */
export function escapeHtmlText(text: string): string {
  return text.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`);
}
