/**
 * The floor of `npm run bench`: a bare node:http server that reads and parses the body, then answers
 * a fixed JSON of the size the fake answers the same path with. Plain JavaScript so node runs it with
 * no loader (its cold start is the floor's too).
 *
 *   node bench/floor.mjs '{"/v1/balances.check": 717}'   → prints "listening on http://127.0.0.1:<port>"
 */
import { createServer } from 'node:http';

/** A JSON object of exactly `size` bytes (at least 12). */
function fixedJson(size) {
  const padding = Math.max(0, size - '{"padding":""}'.length);
  return JSON.stringify({ padding: 'x'.repeat(padding) });
}

const sizes = JSON.parse(process.argv[2] ?? '{}');
const answers = new Map(Object.entries(sizes).map(([path, size]) => [path, fixedJson(size)]));
const fallback = fixedJson(64);

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    if (text !== '') JSON.parse(text);
    const body = answers.get(request.url) ?? fallback;
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
