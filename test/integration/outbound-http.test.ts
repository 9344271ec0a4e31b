import { once } from 'node:events';
import * as http from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ENV } from '#shared/platform/config.ts';
import { OutboundError, type OutboundRequest, outboundRequest } from '#shared/platform/outbound-http.ts';

/**
 * The guarded outbound client against a real server on 127.0.0.1. Every refused request is aimed at that
 * server's port, so a refusal that failed would reach it: each refusal test also asserts the server saw no
 * connection. Nothing here resolves an external name or leaves the machine.
 */
let server: http.Server;
let port: number;
let connections = 0;
let requests = 0;
/** The connections the server answered requests on. */
const servingSockets = new Set<unknown>();
/** Routes of the test server by path. */
const routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void> = {
  '/echo': (req, res, body) => {
    res.setHeader('content-type', 'application/json');
    res.setHeader('x-answer', 'yes');
    res.end(
      JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: body.toString() }),
    );
  },
  '/redirect': (_req, res) => {
    res.writeHead(302, { location: `http://127.0.0.1:${port}/secret` }).end('moved');
  },
  '/secret': (_req, res) => {
    res.end('the secret');
  },
  '/never': () => {
    // Never answers.
  },
  '/stall-body': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('part of the answer');
  },
  '/large-declared': (_req, res) => {
    res.writeHead(200, { 'content-length': String(1024 * 1024 + 1) });
    res.end(Buffer.alloc(1024 * 1024 + 1, 'a'));
  },
  '/large-chunked': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    for (let i = 0; i < 20; i++) res.write(Buffer.alloc(64 * 1024, 'a'));
    res.end();
  },
  '/exactly-1mib': (_req, res) => {
    res.end(Buffer.alloc(1024 * 1024, 'a'));
  },
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests++;
    servingSockets.add(req.socket);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () =>
      (routes[new URL(req.url ?? '/', 'http://x').pathname] ?? routes['/echo']!)(
        req,
        res,
        Buffer.concat(chunks),
      ),
    );
  });
  server.on('connection', () => connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

beforeEach(() => {
  connections = 0;
  requests = 0;
  servingSockets.clear();
});

afterEach(() => {
  delete process.env[ENV.outboundAllowedHosts];
  delete process.env[ENV.outboundTimeoutMs];
});

function allow(hosts: string): void {
  process.env[ENV.outboundAllowedHosts] = hosts;
}

async function failureOf(request: OutboundRequest): Promise<OutboundError> {
  const error = await outboundRequest(request).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundError);
  return error as OutboundError;
}

/** A resolver under the test's control: every name resolves to `addresses`. */
function resolvesTo(...addresses: string[]): LookupFunction & { calls: string[] } {
  const calls: string[] = [];
  const lookup = ((hostname, options, callback) => {
    calls.push(hostname);
    const all = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    if (options.all) callback(null, all);
    else callback(null, all[0]!.address, all[0]!.family);
  }) as LookupFunction;
  return Object.assign(lookup, { calls });
}

describe('outboundRequest refusals', () => {
  it.each([
    '127.0.0.1',
    '[::1]',
    '[::ffff:127.0.0.1]',
    '2130706433',
    '0x7f.1',
    '0177.0.0.1',
    '127.1',
    '169.254.169.254',
    '10.0.0.1',
    '0.0.0.0',
    '[::]',
  ])('refuses %s before connecting', async (host) => {
    const error = await failureOf({ url: `http://${host}:${port}/echo` });
    expect(error.code).toBe('refused');
    expect(error.message).toMatch(/^the address of .+ is not allowed/);
    expect(connections).toBe(0);
  });

  it('refuses localhost when the system resolver answers with loopback, at connect time', async () => {
    const error = await failureOf({ url: `http://localhost:${port}/echo` });
    expect(error).toMatchObject({ code: 'refused' });
    expect(error.message).toBe(
      'the address of localhost is not allowed: loopback, private, link-local and other non-public addresses are not allowed (an operator may allow a host with OUTBOUND_ALLOWED_HOSTS)',
    );
    expect(connections).toBe(0);
  });

  it.each([
    ['127.0.0.1'],
    ['::1'],
    ['10.1.2.3'],
    ['169.254.169.254'],
    ['::ffff:127.0.0.1'],
    // One refused address among several refuses the name.
    ['203.0.113.9', '127.0.0.1'],
  ])('refuses a name that resolves to %s, without naming the address', async (...addresses) => {
    const lookup = resolvesTo(...addresses);
    const error = await failureOf({ url: `http://hooks.rebind.test:${port}/echo`, lookup });
    expect(error.code).toBe('refused');
    expect(error.message).toContain('the address of hooks.rebind.test is not allowed');
    for (const address of addresses) expect(error.message).not.toContain(address);
    expect(lookup.calls).toEqual(['hooks.rebind.test']);
    expect(connections).toBe(0);
  });

  it('refuses over https too', async () => {
    const lookup = resolvesTo('127.0.0.1');
    expect(await failureOf({ url: `https://hooks.rebind.test:${port}/`, lookup })).toMatchObject({
      code: 'refused',
    });
    expect(await failureOf({ url: `https://[::ffff:a9fe:a9fe]/` })).toMatchObject({ code: 'refused' });
    expect(connections).toBe(0);
  });

  it.each([
    ['ftp://example.com/', 'only http and https'],
    ['https://user:secret@example.com/', 'user name or password'],
    ['::not a url', 'not valid'],
  ])('refuses the URL %s as invalid', async (url, reason) => {
    const error = await failureOf({ url });
    expect(error.code).toBe('invalid_url');
    expect(error.message).toContain(reason);
  });

  it('returns a redirect to loopback as it is, without following it', async () => {
    allow(`127.0.0.1:${port}`);
    const response = await outboundRequest({ url: `http://127.0.0.1:${port}/redirect` });
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe(`http://127.0.0.1:${port}/secret`);
    expect(response.body.toString()).toBe('moved');
    expect(requests).toBe(1);
  });

  it('allows a host only on the port the allow list names', async () => {
    allow(`127.0.0.1:${port + 1},localhost:${port}`);
    expect(await failureOf({ url: `http://127.0.0.1:${port}/echo` })).toMatchObject({ code: 'refused' });
    expect(connections).toBe(0);
  });
});

describe('outboundRequest to an allowed host', () => {
  it('sends a GET with its headers and returns status, headers and body', async () => {
    allow(`127.0.0.1:${port}`);
    const response = await outboundRequest({
      url: `http://127.0.0.1:${port}/echo?q=1`,
      headers: { 'x-custom': 'value', 'user-agent': 'promptops-test/1' },
    });
    expect(response.status).toBe(200);
    expect(response.headers['x-answer']).toBe('yes');
    const echoed = JSON.parse(response.body.toString());
    expect(echoed).toMatchObject({ method: 'GET', url: '/echo?q=1', body: '' });
    expect(echoed.headers).toMatchObject({ 'x-custom': 'value', 'user-agent': 'promptops-test/1' });
  });

  it('sends a POST body with its content-length, and drops the headers it manages', async () => {
    allow(`127.0.0.1:${port}`);
    const body = JSON.stringify({ event_type: 'webhook_test', text: 'héllo' });
    const response = await outboundRequest({
      url: `http://127.0.0.1:${port}/echo`,
      method: 'POST',
      headers: { 'content-type': 'application/json', host: 'evil.example', 'content-length': '1' },
      body,
    });
    const echoed = JSON.parse(response.body.toString());
    expect(echoed.method).toBe('POST');
    expect(echoed.body).toBe(body);
    expect(echoed.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(echoed.headers['transfer-encoding']).toBeUndefined();
    expect(echoed.headers.host).toBe(`127.0.0.1:${port}`);
    expect(echoed.headers['content-type']).toBe('application/json');
  });

  it('reuses one kept-alive connection for successive requests', async () => {
    allow(`127.0.0.1:${port}`);
    for (let i = 0; i < 3; i++) await outboundRequest({ url: `http://127.0.0.1:${port}/echo` });
    expect(requests).toBe(3);
    expect(servingSockets.size).toBe(1);
  });

  it('never reuses an allowed host connection once the host leaves the allow list', async () => {
    allow(`127.0.0.1:${port}`);
    await outboundRequest({ url: `http://127.0.0.1:${port}/echo` });
    delete process.env[ENV.outboundAllowedHosts];
    expect(await failureOf({ url: `http://127.0.0.1:${port}/echo` })).toMatchObject({ code: 'refused' });
    expect(requests).toBe(1);
  });

  it('allows a host name for every port, past the connect-time filter', async () => {
    allow('localhost');
    const response = await outboundRequest({ url: `http://localhost:${port}/echo` });
    expect(response.status).toBe(200);
  });

  it('refuses a header that is not valid HTTP', async () => {
    allow(`127.0.0.1:${port}`);
    const error = await failureOf({
      url: `http://127.0.0.1:${port}/echo`,
      headers: { 'x-bad': 'a\r\nb: c' },
    });
    expect(error).toMatchObject({
      code: 'invalid_url',
      message: 'the header "x-bad" is not a valid HTTP header',
    });
    expect(connections).toBe(0);
  });

  it('times out on a server that never answers', async () => {
    allow(`127.0.0.1:${port}`);
    const error = await failureOf({ url: `http://127.0.0.1:${port}/never`, timeoutMs: 100 });
    expect(error).toMatchObject({
      code: 'timeout',
      message: '127.0.0.1 did not answer completely within 100 ms',
    });
  });

  it('times out on an answer whose body never ends, with OUTBOUND_TIMEOUT_MS as the default', async () => {
    allow(`127.0.0.1:${port}`);
    process.env[ENV.outboundTimeoutMs] = '100';
    expect(await failureOf({ url: `http://127.0.0.1:${port}/stall-body` })).toMatchObject({
      code: 'timeout',
    });
  });

  it.each(['/large-declared', '/large-chunked'])('refuses an answer over 1 MiB (%s)', async (path) => {
    allow(`127.0.0.1:${port}`);
    const error = await failureOf({ url: `http://127.0.0.1:${port}${path}` });
    expect(error).toMatchObject({
      code: 'too_large',
      message: 'the answer from 127.0.0.1 is larger than 1048576 bytes',
    });
  });

  it('reads an answer of exactly the cap, and honours a smaller cap', async () => {
    allow(`127.0.0.1:${port}`);
    const response = await outboundRequest({ url: `http://127.0.0.1:${port}/exactly-1mib` });
    expect(response.body.length).toBe(1024 * 1024);
    const error = await failureOf({ url: `http://127.0.0.1:${port}/echo`, maxResponseBytes: 10 });
    expect(error.code).toBe('too_large');
  });

  it('reports a closed port and a TLS failure as network errors', async () => {
    const closed = http.createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const closedPort = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    allow(`127.0.0.1:${closedPort},127.0.0.1:${port}`);
    expect(await failureOf({ url: `http://127.0.0.1:${closedPort}/` })).toMatchObject({
      code: 'network',
      message: '127.0.0.1 did not accept the connection (ECONNREFUSED)',
    });
    const tls = await failureOf({ url: `https://127.0.0.1:${port}/echo` });
    expect(tls.code).toBe('network');
  });
});
