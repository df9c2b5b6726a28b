/**
 * Test support for the framework's own tests: throwaway node:http servers on port 0 and a small
 * operation table. Not part of the public surface.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { defineOperation } from '../../spec/operation.ts';
import { createClient } from './client.ts';
import { EvidenceLog } from './evidence.ts';

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export type Handler = (req: SeenRequest, res: ServerResponse) => void | Promise<void>;

export interface TestServer {
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(seen);
      Promise.resolve()
        .then(() => handler(seen, res))
        .catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

export const TestErrorBody = z.object({ message: z.string(), code: z.string(), env: z.enum(['sandbox', 'live']) });

export const testOperations = {
  'things.get': defineOperation({
    name: 'things.get',
    part: 'plans',
    provenance: 'documented',
    summary: 'Reads a thing.',
    request: z.object({ thing_id: z.string().min(1) }),
    response: z.object({ id: z.string(), add_on: z.boolean(), items: z.array(z.object({ created_at: z.int() })) }),
    mutates: false,
    shapeRule: 'THING-GET-SHAPE',
    documentedSpellings: { add_on: 'addOn', created_at: 'createdAt' },
  }),
  'things.create': defineOperation({
    name: 'things.create',
    part: 'plans',
    provenance: 'reference',
    summary: 'Creates a thing.',
    request: z.object({ thing_id: z.string().regex(/^[a-zA-Z0-9_-]+$/), name: z.string().min(1) }),
    response: z.object({ id: z.string() }),
    mutates: true,
    shapeRule: 'THING-CREATE-SHAPE',
  }),
  'things.check': defineOperation({
    name: 'things.check',
    part: 'plans',
    provenance: 'documented',
    summary: 'Reads a thing, and uses it up when asked to.',
    request: z.object({ thing_id: z.string(), use_up: z.boolean().optional() }),
    response: z.object({ id: z.string() }),
    mutates: (body) => body.use_up === true,
    shapeRule: 'THING-CHECK-SHAPE',
  }),
  'things.delete': defineOperation({
    name: 'things.delete',
    part: 'plans',
    provenance: 'reference',
    summary: 'Deletes a thing.',
    request: z.object({ thing_id: z.string(), owner_id: z.string().optional() }),
    response: z.object({ success: z.literal(true) }),
    mutates: true,
    shapeRule: 'THING-DELETE-SHAPE',
  }),
};

export const TEST_KEY = 'am_sk_test_Sup3rS3cretKeyValue0123456789abcdefXYZ';

/** A client of the test operations against a test server: no retries, a short timeout. */
export function testClient(url: string, evidence = new EvidenceLog()) {
  return createClient({ baseUrl: url, apiKey: TEST_KEY, apiVersion: '2.4.0', timeoutMs: 5_000, retry: false, operations: testOperations, errorBody: TestErrorBody, evidence });
}
