/**
 * Serves a `(Request) => Promise<Response>` handler on a node:http server. Requests are streamed in
 * as web Requests and responses streamed back; the handler never sees node's types.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

export interface ServedHandler {
  readonly url: string;
  readonly server: Server;
  readonly close: () => Promise<void>;
}

function toRequest(incoming: IncomingMessage, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = incoming.method !== 'GET' && incoming.method !== 'HEAD';
  return new Request(new URL(incoming.url ?? '/', origin), {
    method: incoming.method ?? 'GET',
    headers,
    ...(hasBody && { body: Readable.toWeb(incoming) as ReadableStream<Uint8Array>, duplex: 'half' }),
  });
}

async function send(response: Response, outgoing: ServerResponse): Promise<void> {
  outgoing.statusCode = response.status;
  response.headers.forEach((value, name) => outgoing.setHeader(name, value));
  if (response.body === null) {
    outgoing.end();
    return;
  }
  for await (const chunk of response.body) outgoing.write(chunk);
  outgoing.end();
}

export async function serve(handler: (request: Request) => Promise<Response>, options: { port?: number; host?: string } = {}): Promise<ServedHandler> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((incoming, outgoing) => {
    const origin = `http://${incoming.headers.host ?? host}`;
    let request: Request;
    try {
      request = toRequest(incoming, origin);
    } catch {
      outgoing.writeHead(400, { 'content-type': 'application/json' });
      outgoing.end(JSON.stringify({ message: 'Malformed request', code: 'invalid_request', env: 'sandbox' }));
      return;
    }
    handler(request)
      .then((response) => send(response, outgoing))
      .catch(() => {
        if (!outgoing.headersSent) outgoing.writeHead(500, { 'content-type': 'application/json' });
        outgoing.end();
      });
  });
  // Keep-alive sockets would otherwise hold close() open until they time out.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
