import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { keyCheckedByHandler } from '#shared/platform/auth-context.ts';
import { BINARY_MEDIA_TYPES } from '#shared/platform/config.ts';
import { TtlCache } from '#shared/platform/ttl-cache.ts';
import { bodyTooLarge, GATEWAY_ERRORS, gatewayErrorBody } from '../gateway-errors.ts';
import type { RouteDef } from '../routes.ts';

/**
 * The local stand-in for API Gateway: matches the route table, enforces the request-size ceiling,
 * runs the key authorizer first (caching its decision per key for the deployed TTL; not for routes
 * whose key is in the body, which their handler checks), then invokes the route's handler with a
 * REST-API proxy event and writes its answer back.
 */
export type RouteHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
export type AuthorizerHandler = (
  event: APIGatewayRequestAuthorizerEvent,
) => Promise<APIGatewayAuthorizerResult>;

export interface GatewayOptions {
  routes: readonly RouteDef[];
  loadHandler(file: string): Promise<RouteHandler>;
  authorizer: AuthorizerHandler;
  authorizerCacheTtlSeconds: number;
  maxBodyBytes: number;
  /** Lambda's invoke payload limit, for the whole request event and for the response. */
  maxPayloadBytes: number;
  /** Extra local-only routes (diagnostics): GET, behind the same key check, given the caller's workspace. */
  localRoutes?: Record<string, (workspaceId: number) => unknown>;
  /**
   * WebSocket endpoints by exact path (the run updates at `/connection/websocket`): each takes the
   * upgrade request; an upgrade to any other path is refused.
   */
  upgrades?: Record<string, (req: IncomingMessage, socket: Duplex, head: Buffer) => void>;
  /**
   * GET routes answered without a key (the API's document and docs page, the dashboard's redirects), by
   * exact path: 200 unless the answer gives its status and headers.
   */
  publicRoutes?: Record<string, () => Promise<PublicAnswer>>;
  /**
   * Checks each answer of a route (the tests check success bodies against the declared response
   * schemas): a message makes the gateway answer 500 `response_schema_mismatch` instead.
   */
  checkAnswer?(handler: RouteHandler, status: number, body: string | Buffer): string | undefined;
  /**
   * Wraps each call of a route's handler and of the authorizer (the local runtime enforces the
   * function's grants there).
   */
  invoke?<T>(fn: RouteDef | 'authorizer', call: () => Promise<T>): Promise<T>;
  onError?(error: unknown): void;
  /** Told of every answered request, as API Gateway's access log records it (never a key or a body). */
  onAccess?(entry: AccessLogEntry): void;
}

export interface PublicAnswer {
  contentType: string;
  body: string | Buffer;
  status?: number;
  headers?: Record<string, string>;
}

/** One line of the access log: what API Gateway's access logs give in AWS. */
export interface AccessLogEntry {
  requestId: string;
  method: string;
  /** The path without its query string (a query may carry what a client would not log). */
  path: string;
  status: number;
  latencyMs: number;
}

interface CompiledRoute {
  def: RouteDef;
  pattern: RegExp;
  params: string[];
}

interface CachedDecision {
  context: Record<string, string> | undefined;
  principalId: string;
}

const STAGE = 'local';
const MAX_CACHED_DECISIONS = 1000;

export class LocalGateway {
  private readonly options: GatewayOptions;
  private readonly routes: CompiledRoute[];
  /** The authorizer's decisions by key, for the deployed TTL (bounded: a flood of made-up keys). */
  private readonly decisions: TtlCache<CachedDecision>;
  private server: Server | undefined;

  constructor(options: GatewayOptions) {
    this.options = options;
    // As API Gateway does, a literal path segment wins over a parameter at the same place
    // (GET /requests/suggestions before GET /requests/{request_id}).
    this.routes = [...options.routes].sort(bySpecificity).map(compileRoute);
    this.decisions = new TtlCache(options.authorizerCacheTtlSeconds * 1000, MAX_CACHED_DECISIONS);
  }

  async listen(port: number, host = '127.0.0.1'): Promise<string> {
    this.server = createServer((req, res) => {
      // As API Gateway: every answer carries the request's id, which the function's event and logs carry too.
      const requestId = randomUUID();
      res.setHeader('x-amzn-RequestId', requestId);
      const started = performance.now();
      res.once('finish', () =>
        this.options.onAccess?.({
          requestId,
          method: (req.method ?? 'GET').toUpperCase(),
          path: new URL(req.url ?? '/', 'http://localhost').pathname,
          status: res.statusCode,
          latencyMs: Math.round(performance.now() - started),
        }),
      );
      this.handle(req, res, requestId).catch((error) => {
        this.options.onError?.(error);
        send(res, 500, { success: false, message: 'Internal error', error: 'internal_error' });
      });
    });
    this.server.keepAliveTimeout = 65_000;
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      const upgrade = this.options.upgrades?.[path];
      if (upgrade && Object.hasOwn(this.options.upgrades ?? {}, path)) return upgrade(req, socket, head);
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    });
    // Malformed requests and oversized headers (Node's own 400/431) still get the error body.
    this.server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
      if (!socket.writable) return socket.destroy();
      const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
      const body = JSON.stringify({
        success: false,
        message: status === 431 ? 'Request headers too large' : 'Malformed HTTP request',
        error: status === 431 ? 'headers_too_large' : 'bad_request',
      });
      socket.end(
        `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    await new Promise<void>((resolve, reject) => {
      this.server?.once('error', reject);
      this.server?.listen(port, host, resolve);
    });
    return `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = (req.method ?? 'GET').toUpperCase();
    const publicRoutes = this.options.publicRoutes ?? {};
    if (method === 'GET' && Object.hasOwn(publicRoutes, url.pathname)) {
      await drain(req);
      const answer = await publicRoutes[url.pathname]!();
      return send(res, answer.status ?? 200, answer.body, {
        'Content-Type': answer.contentType,
        ...answer.headers,
      });
    }
    const local = this.options.localRoutes?.[url.pathname];
    if (local && method === 'GET') {
      const apiKey = headerValue(flattenHeaders(req), 'x-api-key');
      const decision = apiKey ? await this.authorize(apiKey, method, url.pathname) : undefined;
      const workspaceId = Number(decision?.context?.workspaceId);
      if (!workspaceId)
        return send(res, 401, {
          success: false,
          message: 'Missing or invalid API key',
          error: 'unauthorized',
        });
      return send(res, 200, local(workspaceId));
    }

    const match = this.match(method, url.pathname);
    if (!match) {
      await drain(req);
      return send(res, GATEWAY_ERRORS.noRoute.statusCode, gatewayErrorBody(GATEWAY_ERRORS.noRoute));
    }

    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > this.options.maxBodyBytes) {
      // Answering while the client still sends would close the socket under it (EPIPE, no answer at all):
      // read what it sends, up to a bound, then answer.
      if (declared <= DISCARD_BEFORE_ANSWER_BYTES) await drain(req);
      else req.resume();
      return send(res, 413, bodyTooLarge(this.options.maxBodyBytes), { Connection: 'close' });
    }
    const body = await readBody(req, this.options.maxBodyBytes);
    if (body === undefined)
      return send(res, 413, bodyTooLarge(this.options.maxBodyBytes), { Connection: 'close' });

    const headers = flattenHeaders(req);
    // A body-key or Basic-auth route has no authorizer, as in the stack: its handler checks the key. Public
    // files (a `site` row: the dashboard's, the OpenAPI document) need none.
    let decision: CachedDecision | undefined;
    if (!keyCheckedByHandler(match.def.auth) && !match.def.site) {
      const apiKey = headerValue(headers, 'x-api-key');
      if (!apiKey)
        return send(res, GATEWAY_ERRORS.missingKey.statusCode, gatewayErrorBody(GATEWAY_ERRORS.missingKey));
      decision = await this.authorize(apiKey, method, match.def.path);
      if (!decision.context)
        return send(res, GATEWAY_ERRORS.invalidKey.statusCode, gatewayErrorBody(GATEWAY_ERRORS.invalidKey));
    }

    const handler = await this.options.loadHandler(match.def.handler);
    const event = toProxyEvent(req, url, method, match, headers, body, decision, requestId);
    // Lambda limits the whole event, in which the body grows by its escaping: mirror it, as API Gateway
    // answers 413 when the invoke is refused.
    // Escaping at most sextuples a byte (a control character becomes \u00XX), so small bodies cannot pass.
    const mayExceed = body.length * 6 + 64 * 1024 > this.options.maxPayloadBytes;
    const eventBytes = mayExceed ? Buffer.byteLength(JSON.stringify(event)) : 0;
    if (eventBytes > this.options.maxPayloadBytes) {
      return send(res, 413, invokeTooLarge(this.options.maxPayloadBytes, eventBytes));
    }
    const context = lambdaContext(match.def.handler, match.def);
    const result = await this.invoke(match.def, () => handler(event, context));
    // A response over the limit never leaves Lambda; API Gateway answers a 5xx instead.
    if (Buffer.byteLength(JSON.stringify(result)) > this.options.maxPayloadBytes) {
      this.options.onError?.(
        new Error(`${match.def.handler} answered more than ${this.options.maxPayloadBytes} bytes`),
      );
      return send(res, 502, gatewayErrorBody(GATEWAY_ERRORS.internal));
    }
    const resultBody = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
    const mismatch = match.def.site
      ? undefined
      : this.options.checkAnswer?.(handler, result.statusCode, resultBody);
    if (mismatch) {
      const message = `${method} ${match.def.path} answered ${result.statusCode} with a body its declared response schema refuses: ${mismatch}`;
      this.options.onError?.(new Error(message));
      return send(res, 500, { success: false, message, error: 'response_schema_mismatch' });
    }
    send(res, result.statusCode, resultBody, result.headers as Record<string, string> | undefined);
  }

  private invoke<T>(fn: RouteDef | 'authorizer', call: () => Promise<T>): Promise<T> {
    return this.options.invoke ? this.options.invoke(fn, call) : call();
  }

  private match(method: string, path: string): { def: RouteDef; params: Record<string, string> } | undefined {
    for (const route of this.routes) {
      if (route.def.method !== method) continue;
      const found = route.pattern.exec(path);
      if (!found) continue;
      const params: Record<string, string> = Object.create(null);
      route.params.forEach((name, i) => {
        // As API Gateway's REST API does: path parameters stay percent-encoded (the route decodes them).
        params[name] = found[i + 1] ?? '';
      });
      return { def: route.def, params };
    }
    return undefined;
  }

  private async authorize(apiKey: string, method: string, path: string): Promise<CachedDecision> {
    const cached = this.decisions.get(apiKey);
    if (cached) return cached;
    const result = await this.invoke('authorizer', () =>
      this.options.authorizer({
        type: 'REQUEST',
        methodArn: `arn:aws:execute-api:local:000000000000:local/${STAGE}/${method}${path}`,
        resource: path,
        path,
        httpMethod: method,
        headers: { 'X-API-KEY': apiKey },
        multiValueHeaders: { 'X-API-KEY': [apiKey] },
        pathParameters: null,
        queryStringParameters: null,
        multiValueQueryStringParameters: null,
        stageVariables: null,
        requestContext: {} as APIGatewayRequestAuthorizerEvent['requestContext'],
      }),
    );
    const allowed = result.policyDocument.Statement.some((statement) => statement.Effect === 'Allow');
    const decision: CachedDecision = {
      context: allowed ? ((result.context ?? {}) as Record<string, string>) : undefined,
      principalId: result.principalId,
    };
    this.decisions.set(apiKey, decision);
    return decision;
  }
}

function compileRoute(def: RouteDef): CompiledRoute {
  const params: string[] = [];
  const source = def.path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)(\+?)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      params.push(param[1] ?? '');
      return param[2] ? '(.+)' : '([^/]+)';
    })
    .join('/');
  return { def, pattern: new RegExp(`^${source}/?$`), params };
}

/**
 * A body declared over the limit is read and thrown away before the 413 up to this size, so the client
 * gets its answer; a larger one is answered at once (the client may see the connection close instead).
 */
const DISCARD_BEFORE_ANSWER_BYTES = 256 * 1024 * 1024;

/** Reads the body, or answers undefined when it grows past the limit (chunked uploads have no length). */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= limit) chunks.push(chunk as Buffer);
  }
  return size > limit ? undefined : Buffer.concat(chunks);
}

async function drain(req: IncomingMessage): Promise<void> {
  for await (const _ of req) {
    // discard
  }
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = Object.create(null);
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    headers[req.rawHeaders[i] ?? ''] = req.rawHeaders[i + 1] ?? '';
  return headers;
}

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  for (const [header, value] of Object.entries(headers)) if (header.toLowerCase() === name) return value;
  return undefined;
}

/**
 * Whether API Gateway treats a body of this Content-Type as binary: its media type (parameters aside)
 * matches an entry of the binary media types, where `*` stands for any type or subtype.
 */
export function isBinaryMediaType(
  contentType: string | undefined,
  binaryTypes = BINARY_MEDIA_TYPES,
): boolean {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (!type) return false;
  const [main, sub] = type.split('/');
  return binaryTypes.some((entry) => {
    const [entryMain, entrySub] = entry.toLowerCase().split('/');
    return (entryMain === '*' || entryMain === main) && (entrySub === '*' || entrySub === sub);
  });
}

function toProxyEvent(
  req: IncomingMessage,
  url: URL,
  method: string,
  match: { def: RouteDef; params: Record<string, string> },
  headers: Record<string, string>,
  body: Buffer,
  decision: CachedDecision | undefined,
  requestId: string,
): APIGatewayProxyEvent {
  // Keyed by client text: without a prototype, `?constructor=` or `?__proto__=` are names like any other
  // (as in API Gateway's event, which is parsed JSON where `__proto__` is an own property).
  const query: Record<string, string> = Object.create(null);
  const multiQuery: Record<string, string[]> = Object.create(null);
  for (const [name, value] of url.searchParams) {
    query[name] = value;
    multiQuery[name] = [...(multiQuery[name] ?? []), value];
  }
  // As API Gateway: a body of a binary media type arrives base64-encoded, any other as (UTF-8) text. A
  // compressed body (Content-Encoding other than identity) is bytes whatever its type: it arrives base64
  // too, for the route to decompress (API Gateway may decompress it itself; routes take either).
  const encoding = headerValue(headers, 'content-encoding')?.trim().toLowerCase();
  const compressed = encoding !== undefined && encoding !== '' && encoding !== 'identity';
  const binary = body.length > 0 && (compressed || isBinaryMediaType(headerValue(headers, 'content-type')));
  return {
    resource: match.def.path,
    path: url.pathname,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: url.search ? query : null,
    multiValueQueryStringParameters: url.search ? multiQuery : null,
    pathParameters: match.def.path.includes('{') ? match.params : null,
    stageVariables: null,
    body: body.length === 0 ? null : binary ? body.toString('base64') : body.toString('utf8'),
    isBase64Encoded: binary,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: decision ? { ...decision.context, principalId: decision.principalId } : null,
      httpMethod: method,
      path: `/${STAGE}${url.pathname}`,
      stage: STAGE,
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: match.def.path,
      protocol: `HTTP/${req.httpVersion}`,
      identity: {
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
      } as APIGatewayProxyEvent['requestContext']['identity'],
    },
  };
}

/** The Lambda context of one invocation of a handler file (a route's, a schedule's). */
export function lambdaContext(
  handler: string,
  def: { timeoutSeconds?: number; memoryMb?: number } = {},
): Context {
  const deadline = Date.now() + (def.timeoutSeconds ?? 10) * 1000;
  const name = handler.replace(/^.*\//, '').replace(/\.ts$/, '');
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `promptops-local-${name}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:promptops-local-${name}`,
    memoryLimitInMB: String(def.memoryMb ?? 256),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/promptops-local-${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * The body fits its limit but the event carrying it does not: the limit hit is Lambda's invoke payload,
 * named in Lambda's own words (its RequestEntityTooLargeException), with the size the event came to.
 */
const invokeTooLarge = (limit: number, eventBytes: number) => ({
  success: false,
  message:
    `Request must be smaller than ${limit} bytes for the InvokeFunction operation: with its body escaped ` +
    `into the Lambda event, this request is ${eventBytes} bytes (Lambda's ${limit / 1024 / 1024} MB payload limit)`,
  error: 'payload_too_large',
});

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

/** Literal segments sort before parameters, place by place (a total order, so sort() keeps it). */
function bySpecificity(a: RouteDef, b: RouteDef): number {
  const key = (route: RouteDef) =>
    route.path
      .split('/')
      .map((segment) => (segment.startsWith('{') ? '1' : '0'))
      .join('');
  const [left, right] = [key(a), key(b)];
  return left < right ? -1 : left > right ? 1 : 0;
}
