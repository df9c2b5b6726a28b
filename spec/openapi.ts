/**
 * Builds the OpenAPI 3.1 document of the interface from the operation table and its Zod schemas
 * (zod v4's JSON Schema export). `npm run openapi` writes it to spec/openapi.json.
 */
import { z } from 'zod';
import { ErrorBody } from './common.ts';
import { operations } from './operations.ts';
import { RULES } from './rules/catalogue.ts';

export const API_VERSION = '2.4.0';

type JsonSchema = Record<string, unknown>;

/** Moves a generated schema's `$defs` into the shared components and points its refs there. */
function hoist(schema: z.ZodType, components: Record<string, JsonSchema>): JsonSchema {
  const generated = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
  const rewritten = JSON.parse(JSON.stringify(generated).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
  const { $schema: _dialect, $defs, ...root } = rewritten;
  for (const [id, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
    const existing = components[id];
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(definition)) {
      throw new Error(`two different schemas share the component id ${id}`);
    }
    components[id] = definition;
  }
  return root;
}

export function buildOpenApiDocument(): JsonSchema {
  const components: Record<string, JsonSchema> = {};
  const errorResponse = {
    description: 'Error: the body is `{message, code, env}` (shape taken from the reference implementation).',
    content: { 'application/json': { schema: hoist(ErrorBody, components) } },
  };
  const paths: Record<string, JsonSchema> = {};
  for (const op of Object.values(operations)) {
    paths[op.path] = {
      post: {
        operationId: op.name,
        summary: op.summary,
        tags: [op.part],
        'x-provenance': op.provenance,
        'x-rules': RULES.filter((rule) => (rule.operations as readonly string[]).includes(op.name)).map((rule) => rule.id),
        parameters: [{ $ref: '#/components/parameters/ApiVersion' }],
        requestBody: { required: true, content: { 'application/json': { schema: hoist(op.request, components) } } },
        responses: {
          '200': { description: 'Success', content: { 'application/json': { schema: hoist(op.response, components) } } },
          '4XX': errorResponse,
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Billing and Entitlements Service Interface',
      version: API_VERSION,
      description:
        'Generated from spec/ (Zod schemas). Schemas and fields marked `x-provenance: reference` fill gaps of the interface description from the observed behaviour of a reference implementation; `x-source` says where.',
    },
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://localhost:4010' } } }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      parameters: {
        ApiVersion: {
          name: 'x-api-version',
          in: 'header',
          required: true,
          schema: { type: 'string', default: API_VERSION },
        },
      },
    },
  };
}

/** The document as written to spec/openapi.json (stable key order, trailing newline). */
export function renderOpenApiDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
