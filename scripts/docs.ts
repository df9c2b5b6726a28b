/**
 * What the docs test (docs.test.ts) reads out of the project's Markdown: fenced blocks with their
 * tags, GitHub's heading anchors, and relative links that do not resolve. Pure functions over text
 * and the file system, so the test can also prove them on small documents of its own.
 *
 * A fenced block's info string is its language, then words: flags (`runnable`) and `key=value`
 * options (`exit=1`, `only=A,B`, `journal=nightly`, `file=examples/x.ts`, `from=…`, `pins=…`). GitHub shows only the
 * language, so the tags cost a reader nothing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** The documents the docs test holds to the project: the README and every guide. */
export const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
/** A file of the repository, as text. */
export const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

export interface FencedBlock {
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly flags: ReadonlySet<string>;
  readonly options: Readonly<Record<string, string>>;
  /** The block's content, its fence's indentation removed, ending with a newline unless empty. */
  readonly code: string;
}

/** Every fenced block (``` or ~~~) of a Markdown text, in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,}|~{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, info] = open as unknown as [string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !new RegExp(`^ *${fence[0]}{${fence.length},}\\s*$`).test(lines[j]!); j++) body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!.trimStart());
    const [lang = '', ...words] = info.trim().split(/\s+/).filter(Boolean);
    const options = Object.fromEntries(words.filter((word) => word.includes('=')).map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]));
    blocks.push({ line: i + 1, lang, flags: new Set(words.filter((word) => !word.includes('='))), options, code: body.length === 0 ? '' : `${body.join('\n')}\n` });
    i = j;
  }
  return blocks;
}

/** The fenced blocks of a file of the repository. */
export const blocksOf = (file: string): FencedBlock[] => fencedBlocks(read(file));

const html = (markdown: string) => micromark(markdown, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] });

/** The text of an HTML fragment: tags dropped, the entities micromark writes decoded. */
function textOf(fragment: string): string {
  return fragment
    .replace(/<[^>]*>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, '&');
}

/** GitHub's anchor of a heading text (as github-slugger makes it): lower case, punctuation dropped, spaces to hyphens. */
export function slugOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors GitHub gives a document's headings; a repeated one gets `-1`, `-2`, … */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, inner] of html(markdown).matchAll(/<h[1-6][^>]*>([\s\S]*?)<\/h[1-6]>/g)) {
    const slug = slugOf(textOf(inner!));
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The relative link targets of a document (not URLs with a scheme, nor mail addresses). */
export function relativeLinks(markdown: string): string[] {
  return [...html(markdown).matchAll(/<a [^>]*href="([^"]*)"/g)].map(([, href]) => textOf(href!)).filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href));
}

/**
 * The links of `file` (a path under `root`) that do not resolve: a path that names nothing, or an
 * anchor that is no heading of the Markdown file it points into. Each as `target: why`.
 */
export function brokenLinks(root: string, file: string): string[] {
  const markdown = readFileSync(join(root, file), 'utf8');
  const broken: string[] = [];
  for (const href of relativeLinks(markdown)) {
    const hash = href.indexOf('#');
    const path = decodeURIComponent(hash === -1 ? href : href.slice(0, hash));
    const anchor = hash === -1 ? undefined : decodeURIComponent(href.slice(hash + 1));
    const target = path === '' ? join(root, file) : join(root, dirname(file), path);
    if (relative(root, target).startsWith('..')) {
      broken.push(`${href}: outside the repository`);
      continue;
    }
    if (!existsSync(target)) {
      broken.push(`${href}: no such file`);
      continue;
    }
    if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${href}: no heading with that anchor in ${relative(root, target)}`);
  }
  return broken;
}

/** Whether every line of `excerpt` but its `// …` elisions is a line of `whole`, in order. */
export function isExcerptOf(excerpt: string, whole: string): boolean {
  const lines = whole.split('\n');
  let at = 0;
  for (const line of excerpt.split('\n')) {
    if (line.trim() === '' || /^\s*\/\/ …/.test(line)) continue;
    const found = lines.indexOf(line, at);
    if (found === -1) return false;
    at = found + 1;
  }
  return true;
}

/** The `name@version` pins of a shell block, as `[name, version]`. */
export function pinsOf(block: string): [string, string][] {
  return [...block.matchAll(/(?<=\s)((?:@[\w.-]+\/)?[\w.-]+)@(\d[\w.+-]*)/g)].map(([, name, version]) => [name!, version!]);
}
