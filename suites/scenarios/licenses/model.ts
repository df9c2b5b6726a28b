/**
 * Random sequences of licenses.attach and licenses.release against a model of one pool, written
 * from the document alone: each call's success or refusal, then the pool's usage and remaining.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { checkProperty, createLicensePool, scenario } from '../../support.ts';
import { attachLicenses, existingSeats, pool, releaseLicenses } from './support.ts';

type CommandRule =
  | 'LIC-RELEASE-DUPLICATE-IDS'
  | 'LIC-RELEASE-UNASSIGNED'
  | 'LIC-RELEASE-FREES-SEAT'
  | 'LIC-ATTACH-DUPLICATE-IDS'
  | 'LIC-ATTACH-CAPACITY'
  | 'LIC-ATTACH-ALL-ASSIGNED-OK'
  | 'LIC-ATTACH-MIXED-BATCH'
  | 'LIC-ATTACH-BATCH';

/**
 * A license pool as the document describes it, independent of any implementation: `licenses.attach`
 * rules (1)–(4) and `licenses.release` (with the reference's refusals of duplicates and of entities
 * holding no license). Each method answers whether the call succeeds, and applies it if so.
 */
class LicensePoolModel {
  readonly #assigned = new Set<string>();
  constructor(readonly granted: number) {}

  get usage(): number {
    return this.#assigned.size;
  }

  get remaining(): number {
    return this.granted - this.usage;
  }

  /** The entities holding a seat, sorted. */
  get assigned(): string[] {
    return [...this.#assigned].sort();
  }

  attach(ids: readonly string[]): boolean {
    if (new Set(ids).size !== ids.length) return false;
    const fresh = ids.filter((id) => !this.#assigned.has(id));
    if (fresh.length > this.remaining) return false;
    for (const id of fresh) this.#assigned.add(id);
    return true;
  }

  release(ids: readonly string[]): boolean {
    if (new Set(ids).size !== ids.length || ids.some((id) => !this.#assigned.has(id))) return false;
    for (const id of ids) this.#assigned.delete(id);
    return true;
  }

  /** How many of `ids` hold no seat yet. */
  fresh(ids: readonly string[]): number {
    return new Set(ids.filter((id) => !this.#assigned.has(id))).size;
  }

  /** The rule a command proves, decided before it is applied: the statement of the document that fixes its outcome. */
  ruleOf(op: 'attach' | 'release', ids: readonly string[]): CommandRule {
    const duplicated = new Set(ids).size !== ids.length;
    if (op === 'release') {
      if (duplicated) return 'LIC-RELEASE-DUPLICATE-IDS';
      return ids.some((id) => !this.#assigned.has(id)) ? 'LIC-RELEASE-UNASSIGNED' : 'LIC-RELEASE-FREES-SEAT';
    }
    if (duplicated) return 'LIC-ATTACH-DUPLICATE-IDS';
    const fresh = this.fresh(ids);
    if (fresh > this.remaining) return 'LIC-ATTACH-CAPACITY';
    if (fresh === 0) return 'LIC-ATTACH-ALL-ASSIGNED-OK';
    return fresh < ids.length ? 'LIC-ATTACH-MIXED-BATCH' : 'LIC-ATTACH-BATCH';
  }
}

/**
 * The entity IDs a command's picks name: entities by index, or, for a command meant for the assigned
 * entities (`held`, when there are some), the assigned ones by index modulo their count. Picks meant
 * to repeat an entity keep the repetition; picks that only collide by the modulo do not.
 */
function entityIdsOf(picks: readonly number[], held: readonly string[], all: readonly string[]): string[] {
  if (held.length === 0) return picks.map((pick) => all[pick]!);
  const ids = picks.map((pick) => held[pick % held.length]!);
  return new Set(picks).size === picks.length ? [...new Set(ids)] : ids;
}

const MODEL_ENTITIES = 4;

// Entities 0 and 1 come up more often, so that batches meet entities already assigned.
const entityIndex = fc.oneof({ arbitrary: fc.integer({ min: 0, max: 1 }), weight: 2 }, { arbitrary: fc.integer({ min: 0, max: MODEL_ENTITIES - 1 }), weight: 1 });

const entityPicks = fc.oneof(
  { arbitrary: fc.uniqueArray(entityIndex, { minLength: 1, maxLength: 2 }), weight: 6 },
  { arbitrary: fc.uniqueArray(entityIndex, { minLength: 3, maxLength: MODEL_ENTITIES }), weight: 2 },
  // The same entity twice in one batch.
  { arbitrary: fc.array(entityIndex, { minLength: 2, maxLength: 3 }).filter((picks) => new Set(picks).size < picks.length), weight: 1 },
);

const licenseCommand = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('attach' as const), picks: entityPicks, ofAssigned: fc.constant(false) }), weight: 3 },
  // Most releases pick among the entities the model holds assigned (so they can succeed); the rest pick blindly.
  {
    arbitrary: fc.record({
      op: fc.constant('release' as const),
      picks: entityPicks,
      ofAssigned: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
    }),
    weight: 2,
  },
);

const licenseRun = fc.record({ granted: fc.integer({ min: 1, max: 4 }), commands: fc.array(licenseCommand, { minLength: 3, maxLength: 8 }) });

export const modelScenarios = [
  scenario(
    {
      id: 'licenses.attach-release-model',
      title: 'random sequences of licenses.attach and licenses.release agree with a model pool: success or error, then usage and remaining',
      rules: [
        'LIC-ATTACH-BATCH',
        'LIC-ATTACH-SKIP-ASSIGNED',
        'LIC-ATTACH-MIXED-BATCH',
        'LIC-ATTACH-ALL-ASSIGNED-OK',
        'LIC-ATTACH-DUPLICATE-IDS',
        'LIC-ATTACH-CAPACITY',
        'LIC-ATTACH-ALL-OR-NOTHING',
        'LIC-RELEASE-FREES-SEAT',
        'LIC-RELEASE-UNASSIGNED',
        'LIC-RELEASE-DUPLICATE-IDS',
        'LIC-POOL-USAGE',
        'LIC-POOL-REMAINING',
      ],
    },
    async (t) => {
      const property = fc.asyncProperty(licenseRun, async ({ granted, commands }) => {
        const setup = await createLicensePool(t, granted);
        const entities = await existingSeats(t, setup, MODEL_ENTITIES);
        const model = new LicensePoolModel(granted);
        let before = { usage: 0, remaining: granted };
        for (const [step, { op, picks, ofAssigned }] of commands.entries()) {
          const ids = entityIdsOf(picks, ofAssigned ? model.assigned : [], entities.map((entity) => entity.entity_id));
          const label = `step ${step + 1}, ${op} of entities [${ids.map((id) => entities.findIndex((e) => e.entity_id === id)).join(', ')}] on a pool of ${granted}`;
          const rule = model.ruleOf(op, ids);
          const fresh = model.fresh(ids);
          // A mixed batch refused only because its skipped entities were counted against capacity: that is LIC-ATTACH-SKIP-ASSIGNED's.
          const mixed = op === 'attach' && fresh > 0 && fresh < ids.length;
          const skipRule: CommandRule | 'LIC-ATTACH-SKIP-ASSIGNED' = mixed && ids.length > before.remaining ? 'LIC-ATTACH-SKIP-ASSIGNED' : rule;
          const succeeds = op === 'attach' ? model.attach(ids) : model.release(ids);
          const result =
            op === 'attach' ? await attachLicenses(t, setup, ids.map((id) => entities.find((e) => e.entity_id === id)!)) : await releaseLicenses(t, setup, ids);
          if (succeeds) t.expectOk(result, skipRule);
          else t.expectError(result, { rule });
          const seen = await pool(t, setup);
          const counts = { usage: seen?.usage, remaining: seen?.remaining };
          const expected = { usage: model.usage, remaining: model.remaining };
          // The step's effect must show in usage or in remaining (by how much each moved); a seat taken by a skipped entity is SKIP-ASSIGNED's.
          const moved = (n: number | undefined, from: number) => (n === undefined ? undefined : n - from);
          const usageMoved = moved(counts.usage, before.usage);
          const remainingMoved = moved(counts.remaining, before.remaining);
          const wanted = expected.usage - before.usage;
          const effectShows = usageMoved === wanted || remainingMoved === -wanted;
          const tookMore = (usageMoved ?? 0) > wanted || -(remainingMoved ?? 0) > wanted;
          // What a refused batch leaves behind is LIC-ATTACH-ALL-OR-NOTHING's.
          const effectRule = op === 'attach' && succeeds && fresh < ids.length && tookMore ? 'LIC-ATTACH-SKIP-ASSIGNED' : rule === 'LIC-ATTACH-CAPACITY' ? 'LIC-ATTACH-ALL-OR-NOTHING' : rule;
          t.check(effectRule, () =>
            expect(effectShows, `${label}: licenses.list afterwards shows ${JSON.stringify(counts)}, expected ${JSON.stringify(expected)}`).toBe(true),
          );
          t.check('LIC-POOL-USAGE', () => expect(counts.usage, `${label}: usage`).toBe(expected.usage));
          t.check('LIC-POOL-REMAINING', () => expect(counts.remaining, `${label}: remaining`).toBe(expected.remaining));
          before = expected;
        }
      });
      await checkProperty(t, property, 15);
    },
  ),
];
