/**
 * The import rules of .dependency-cruiser.mjs (docs/contributing.md, "Import rules") hold over the project's
 * source: no import circle, and the layer rules. A failure lists each violation as dependency-cruiser
 * reports it. The rules are first run over a small tree that breaks each of them, so a parser that
 * reads no imports (and would find nothing wrong anywhere) fails here instead of passing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, format, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CONFIG = join(ROOT, '.dependency-cruiser.mjs');
/** Every folder of TypeScript source (examples/ imports the packed package, not the source). */
const SOURCES = ['spec', 'fake-server', 'suites', 'fixtures', 'scripts', 'bench'];

async function cruiseUnder(baseDir: string, folders: readonly string[]): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(CONFIG);
  const { output } = await cruise([...folders], { ...options, baseDir, validate: true });
  if (typeof output === 'string') throw new Error(`dependency-cruiser answered text: ${output}`);
  return output;
}

async function reported(result: ICruiseResult): Promise<string> {
  return String((await format(result, { outputType: 'err' })).output);
}

/** A violation in one line; a circle by its modules, whichever of them it was reported from. */
function described(violation: ICruiseResult['summary']['violations'][number]): string {
  if (violation.cycle === undefined) return `${violation.rule.name}: ${violation.from} -> ${violation.to}`;
  return `${violation.rule.name}: ${[...new Set([violation.from, ...violation.cycle.map((step) => step.name)])].sort().join(', ')}`;
}

/** One file of `tree`'s modules per path; each imports the paths it lists. */
function writeTree(root: string, tree: Readonly<Record<string, readonly string[]>>): void {
  for (const [path, imports] of Object.entries(tree)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), `${imports.map((to, i) => `import * as m${i} from '${to}';\n`).join('')}export const used = [${imports.map((_, i) => `m${i}`).join(', ')}];\n`);
  }
}

describe('import rules', () => {
  const broken = mkdtempSync(join(tmpdir(), 'import-rules-'));
  afterAll(() => rmSync(broken, { recursive: true, force: true }));

  it('find each kind of violation in a tree that breaks every rule', { timeout: 120_000 }, async () => {
    writeTree(broken, {
      'spec/a.ts': ['./b.ts'],
      'spec/b.ts': ['./a.ts', '../fake-server/index.ts'],
      'fake-server/index.ts': [],
      'fake-server/control-client.ts': [],
      'fake-server/router.ts': [],
      'fake-server/http/adapter.ts': [],
      'fake-server/faults/fault.ts': [],
      'fake-server/domain/rules.ts': ['../http/adapter.ts', '../router.ts', '../faults/fault.ts', '../../suites/support.ts'],
      'suites/support.ts': ['../fake-server/index.ts', '../fake-server/control-client.ts'],
      'suites/scenarios/part.ts': ['../support.ts', '../../fake-server/domain/rules.ts'],
      'suites/meta/faults.ts': ['../../fake-server/faults/fault.ts'],
    });
    const result = await cruiseUnder(broken, ['spec', 'fake-server', 'suites']);
    const found = [...new Set(result.summary.violations.map(described))].sort();
    expect(found).toEqual([
      'domain-knows-no-faults: fake-server/domain/rules.ts -> fake-server/faults/fault.ts',
      'domain-knows-no-http: fake-server/domain/rules.ts -> fake-server/http/adapter.ts',
      'domain-knows-no-http: fake-server/domain/rules.ts -> fake-server/router.ts',
      'fake-knows-no-suite: fake-server/domain/rules.ts -> suites/support.ts',
      'no-circular: spec/a.ts, spec/b.ts',
      'spec-stands-alone: spec/b.ts -> fake-server/index.ts',
      'suite-uses-fake-entry-points: suites/scenarios/part.ts -> fake-server/domain/rules.ts',
    ]);
  });

  it('hold over the project: no import circle, no import across a layer rule', { timeout: 120_000 }, async () => {
    const result = await cruiseUnder(ROOT, SOURCES);
    // Every module of the source was read, with its imports (the typed client imports the transport).
    expect(result.summary.totalCruised).toBeGreaterThan(250);
    expect(result.modules.find((m) => m.source === 'suites/framework/client.ts')?.dependencies.map((d) => d.resolved)).toContain('suites/framework/http.ts');
    expect([...new Set(result.summary.violations.map(described))], await reported(result)).toEqual([]);
  });
});
