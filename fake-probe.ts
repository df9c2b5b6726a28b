import { createFakeServer } from './fake-server/index.ts';
const fake = await createFakeServer({ faults: ['PLAN-NAME-MIN-LENGTH', 'FEAT-DUPLICATE-ID'], port: 45999 });
console.log(fake.url, fake.apiKey, fake.otherTenantApiKey);
setTimeout(() => fake.close(), 120_000);
