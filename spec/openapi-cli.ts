/** `npm run openapi`: writes the generated OpenAPI 3.1 document to spec/openapi.json. */
import { writeFileSync } from 'node:fs';
import { renderOpenApiDocument } from './openapi.ts';

const target = new URL('./openapi.json', import.meta.url);
writeFileSync(target, renderOpenApiDocument());
console.log(`wrote ${target.pathname}`);
