import { createFakeApp } from '/work/wt/perf/fake-server/app.ts';
import { sender, setUpFake, HEADERS } from '/work/wt/perf/bench/workloads.ts';
const app = createFakeApp();
await setUpFake(sender('http://x', app.fetch));
const head = (path: string) => ({ method: 'POST', path, header: (n: string) => (HEADERS as any)[n] ?? null, headers: () => new Headers(HEADERS) });
const bodies: Record<string, [string, string]> = {
  plain: ['/v1/balances.check', JSON.stringify({ customer_id: 'cus_bench', feature_id: 'messages' })],
  send_event: ['/v1/balances.check', JSON.stringify({ customer_id: 'cus_bench', feature_id: 'messages', required_balance: 1, send_event: true })],
  subs: ['/v1/subscriptions.list', JSON.stringify({ limit: 50 })],
  ents: ['/v1/entities.list', JSON.stringify({ limit: 200 })],
  attach: ['/v1/licenses.attach', JSON.stringify({ customer_id: 'cus_team', plan_id: 'bench_seat', entities: [{ entity_id: 'seat_0', name: 'Seat', feature_id: 'seats' }] })],
};
const which = process.argv.slice(2);
for (const name of which.length ? which : Object.keys(bodies)) {
  const [path, text] = bodies[name]!;
  const h = head(path);
  const n = name === 'ents' ? 200 : 20000;
  for (let i = 0; i < n / 10; i++) app.reply!(h, { ok: true, text });
  const t = performance.now();
  let status = 0;
  for (let i = 0; i < n; i++) status = (app.reply!(h, { ok: true, text }) as any).status;
  console.log(name, status, ((performance.now() - t) * 1000 / n).toFixed(1), 'µs/op');
}
