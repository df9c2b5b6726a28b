// Plain Node, no TypeScript: start the fake, call it once, stop it.
import { createFakeServer } from 'besi-conformance';
import { operations } from 'besi-conformance/spec';

const fake = await createFakeServer({ port: 0 });
const response = await fetch(`${fake.url}/v1/features.list`, { method: 'POST', headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' }, body: '{}' });
console.log(JSON.stringify({ status: response.status, body: await response.json(), operations: Object.keys(operations).length }));
await fake.close();
