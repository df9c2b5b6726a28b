/**
 * Docs that cannot rot: README.md and the guides in docs/ are checked against the project they
 * describe. Every relative link and anchor resolves; a block tagged `file=` is that whole file,
 * `from=` lines of it in order, `pins=` the versions that package.json pins; every configuration
 * variable is documented. The blocks tagged `runnable` run in docs-runnable.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_VARS } from '../suites/framework/config.ts';
import { anchorsOf, blocksOf, brokenLinks, DOCS, fencedBlocks, isExcerptOf, pinsOf, read, relativeLinks, ROOT } from './docs.ts';

describe('the docs checker', () => {
  it('reads fenced blocks with their language, flags and options, indented ones too', () => {
    const blocks = fencedBlocks(['# T', '```sh runnable exit=1 only=A,B', 'npm test', '```', '', '- item', '  ```json', '  {}', '  ```', '````md', '```', '````'].join('\n'));
    expect(blocks.map(({ line, lang, flags, options, code }) => ({ line, lang, flags: [...flags], options, code }))).toEqual([
      { line: 2, lang: 'sh', flags: ['runnable'], options: { exit: '1', only: 'A,B' }, code: 'npm test\n' },
      { line: 7, lang: 'json', flags: [], options: {}, code: '{}\n' },
      { line: 10, lang: 'md', flags: [], options: {}, code: '```\n' },
    ]);
  });

  it("gives headings GitHub's anchors, repeated ones numbered", () => {
    expect([...anchorsOf('# Billing: the `spec/` folder\n\n## Two commands\n\n## Two commands\n\n## I am … → start here\n')]).toEqual([
      'billing-the-spec-folder',
      'two-commands',
      'two-commands-1',
      'i-am---start-here',
    ]);
  });

  it('finds relative links outside code, not URLs', () => {
    expect(relativeLinks('[a](docs/x.md#y) [b](https://example.com) `[c](not-a-link)` [d](#here) <https://auto.link>')).toEqual(['docs/x.md#y', '#here']);
  });

  it('reports a link to no file, and an anchor that is no heading', () => {
    const root = mkdtempSync(join(tmpdir(), 'docs-links-'));
    try {
      mkdirSync(join(root, 'docs'));
      writeFileSync(join(root, 'docs/a.md'), '# A\n\n## Here\n\n[ok](#here) [ok](../README.md#top) [gone](missing.md) [bad](#nowhere) [bad](../README.md#nowhere) [out](../../x.md)\n');
      writeFileSync(join(root, 'README.md'), '# Top\n');
      expect(brokenLinks(root, 'docs/a.md')).toEqual([
        'missing.md: no such file',
        '#nowhere: no heading with that anchor in docs/a.md',
        '../README.md#nowhere: no heading with that anchor in README.md',
        '../../x.md: outside the repository',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('takes an excerpt only as lines of the file in order, `// …` elided', () => {
    const whole = 'a\nb\nc\nd\n';
    expect(isExcerptOf('a\n// … more\nc\n', whole)).toBe(true);
    expect(isExcerptOf('c\na\n', whole)).toBe(false);
    expect(isExcerptOf('a\nB\n', whole)).toBe(false);
  });

  it('reads the pins of an install command', () => {
    expect(pinsOf('npm install --save-dev jest@30.5.2 @babel/core@7.29.13 autumn-js')).toEqual([
      ['jest', '30.5.2'],
      ['@babel/core', '7.29.13'],
    ]);
  });
});

describe('README.md and docs/', () => {
  it('README.md is a landing page of at most 300 lines, and every guide starts with its reader and task', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300);
    for (const file of DOCS.filter((name) => name !== 'README.md')) {
      const [title, ...rest] = read(file).split('\n');
      expect(title, file).toMatch(/^# \S/);
      expect(rest.find((line) => line.trim() !== ''), `${file}: the first sentence says what its reader wants`).toMatch(/^(You|Your) /);
    }
  });

  it.each(DOCS)('%s: every relative link and anchor resolves', (file) => {
    expect(brokenLinks(ROOT, file)).toEqual([]);
  });

  it('every block tagged file= is that whole file, from= lines of it in order, pins= the versions it pins', () => {
    let checked = 0;
    for (const file of DOCS) {
      for (const block of blocksOf(file)) {
        const where = `${file}:${block.line}`;
        if (block.options['file'] !== undefined) expect(block.code, where).toBe(read(block.options['file']));
        if (block.options['from'] !== undefined) expect(isExcerptOf(block.code, read(block.options['from'])), `${where} is lines of ${block.options['from']}`).toBe(true);
        if (block.options['pins'] !== undefined) {
          const manifest = JSON.parse(read(block.options['pins'])) as { devDependencies?: Record<string, string> };
          const pins = pinsOf(block.code);
          expect(pins.length, where).toBeGreaterThan(0);
          for (const [name, version] of pins) expect(`${name}@${version}`, where).toBe(`${name}@${manifest.devDependencies?.[name]}`);
        }
        checked += ['file', 'from', 'pins'].filter((option) => block.options[option] !== undefined).length;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('docs/vendors.md documents every configuration variable', () => {
    const vendors = read('docs/vendors.md');
    expect(Object.values(ENV_VARS).filter((name) => !vendors.includes(`\`${name}\``))).toEqual([]);
  });

  it("README's two commands are there, and CI runs exactly its test command", () => {
    const readme = read('README.md');
    expect(readme).toContain('npm ci && npm run conformance');
    expect(readme).toContain('npm ci && npm test');
    // `npm run test` is `npm test`; `.ci/run test:full` names another script (a nightly or release run).
    expect(read('.ci/run').split('\n').filter((line) => line.startsWith('npm '))).toEqual(['npm ci --no-audit --no-fund', 'npm run "${1:-test}"']);
  });

  it('the nightly CI workflows (yaml ci-nightly: GitHub Actions and GitLab CI) are in docs/nightly.md alone', () => {
    expect(DOCS.flatMap((file) => blocksOf(file).filter((block) => block.lang === 'yaml' && block.flags.has('ci-nightly')).map(() => file))).toEqual(['docs/nightly.md', 'docs/nightly.md']);
  });
});
