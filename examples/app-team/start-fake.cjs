// Plain Node, CommonJS: require() every entry point an app uses, start the fake, call it once, stop it.
// It runs on Node 20 releases without require(esm) (before 20.19) too: node --no-experimental-require-module start-fake.cjs
const { createFakeServer, FakeControl } = require('besi-conformance');
const control = require('besi-conformance/control');
const { operations } = require('besi-conformance/spec');
const { ConformanceReport } = require('besi-conformance/report');

(async () => {
  const fake = await createFakeServer({ port: 0 });
  const response = await fetch(`${fake.url}/v1/features.list`, { method: 'POST', headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' }, body: '{}' });
  const tenant = await new control.FakeControl({ url: fake.url, key: fake.apiKey }).createTenant();
  console.log(
    JSON.stringify({
      status: response.status,
      body: await response.json(),
      operations: Object.keys(operations).length,
      tenant: tenant.sandboxKey.startsWith('am_sk_test_'),
      oneFakeControl: control.FakeControl === FakeControl,
      reportSchema: typeof ConformanceReport.safeParse,
    }),
  );
  await fake.close();
})();
