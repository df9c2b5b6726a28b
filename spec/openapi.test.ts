import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { operations } from './operations.ts';
import { buildOpenApiDocument, renderOpenApiDocument } from './openapi.ts';

type Doc = { paths: Record<string, { post: { operationId: string; requestBody: { content: Record<string, { schema: Record<string, unknown> }> } } }> };

describe('OpenAPI 3.1 export', () => {
  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    const validator = new Validator();
    const result = await validator.validate(buildOpenApiDocument());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it('the validator rejects a broken document (the check can fail)', async () => {
    const broken = buildOpenApiDocument();
    delete broken['info'];
    const result = await new Validator().validate(broken);
    expect(result.valid).toBe(false);
  });

  it('has one POST path per operation of the table', () => {
    const doc = buildOpenApiDocument() as unknown as Doc;
    expect(Object.keys(doc.paths).sort()).toEqual(Object.values(operations).map((op) => op.path).sort());
    for (const op of Object.values(operations)) expect(doc.paths[op.path]!.post.operationId).toBe(op.name);
  });

  it('carries documented bounds and defaults into the exported request schemas', () => {
    const doc = buildOpenApiDocument() as unknown as Doc & { components: { schemas: Record<string, unknown> } };
    expect(JSON.stringify(doc.paths['/v1/subscriptions.list']!.post.requestBody)).toContain('#/components/schemas/RecordListRequest');
    const listRequest = JSON.stringify(doc.components.schemas['RecordListRequest']);
    expect(listRequest).toContain('"limit":{"default":50,"type":"integer","minimum":1,"maximum":200}');
    expect(listRequest).toContain('"statuses":{"default":["active","scheduled"],"minItems":1');
    const components = JSON.stringify(doc.components);
    expect(components).toContain('"pattern":"^[a-zA-Z0-9_-]+$"');
    expect(components).toContain('"x-provenance":"reference"');
  });

  it('spec/openapi.json is up to date (run `npm run openapi` after changing a schema)', () => {
    const onDisk = readFileSync(new URL('./openapi.json', import.meta.url), 'utf8');
    expect(onDisk).toBe(renderOpenApiDocument());
  });
});
