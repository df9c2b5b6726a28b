/**
 * Many of a thing (parts/scale.ts): a batch refused part-way is as long as the batches that are
 * taken, and what makes it refused may come anywhere in it, past the 100th entity too.
 */
import { describe, expect, it } from 'vitest';
import { createFakeApp, type FakeApp } from '../../fake-server/app.ts';
import { testSeed } from '../../fixtures/random.ts';
import { createNamespace } from '../framework/namespace.ts';
import { explore } from './explorer.ts';
import { inProcessTarget } from './targets.ts';

const seed = testSeed();

describe('a batch of 150 licenses refused part-way', () => {
  it('finds a target that looks for an entity given twice among the first 100 only', { timeout: 120_000 }, async () => {
    const app = createFakeApp();
    // Past the 100th entity, one given again is dropped rather than refused.
    const fetch: FakeApp['fetch'] = async (request) => {
      if (!request.url.endsWith('/v1/licenses.attach')) return app.fetch(request);
      const body = (await request.json()) as { entities?: { entity_id: string }[] };
      const seen = new Set<string>();
      const entities: { entity_id: string }[] = [];
      for (const [i, entity] of (body.entities ?? []).entries()) {
        if (i >= 100 && seen.has(entity.entity_id)) continue;
        seen.add(entity.entity_id);
        entities.push(entity);
      }
      return app.fetch(new Request(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify({ ...body, entities }) }));
    };
    const result = await explore(inProcessTarget(Object.assign(Object.create(app) as FakeApp, { fetch, reply: undefined }), createNamespace({ prefix: 'conf', seed, salt: 'batch' })), { seed, runs: 60, maxSteps: 20, maxFindings: 1, shrinkRuns: 0, minimize: false, localise: false });
    expect(result.coverage['batch-150'], `seed ${seed}`).toBeGreaterThan(0);
    expect(result.findings.map((f) => f.rule), `seed ${seed}: ${result.programs} programs`).toEqual(['LIC-ATTACH-DUPLICATE-IDS']);
  });
});
