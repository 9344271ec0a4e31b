import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP receiver for what the service sends out (webhooks, run callbacks, ENDPOINT nodes):
 * it records every request with its whole body, then lets the test answer it. Its `host` goes into
 * OUTBOUND_ALLOWED_HOSTS, the guarded client's only exception.
 */
export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `127.0.0.1:<port>` */
  host: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

export type Answer = (request: ReceivedRequest, response: ServerResponse) => void;

const noContent: Answer = (_, response) => {
  response.writeHead(204).end();
};

export async function startReceiver(answer: Answer = noContent): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const one = {
        path: request.url ?? '/',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(one);
      answer(one, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
