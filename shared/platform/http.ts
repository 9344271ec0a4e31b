import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { ZodMiniType as ZodType } from '#shared/platform/zod.ts';
import * as z from '#shared/platform/zod.ts';
import {
  type AuthContext,
  type EntityType,
  fromAuthorizerContext,
  type KeyCheck,
  keyCheckedByHandler,
  type RouteAuth,
} from './auth-context.ts';
import { MAX_JSON_DEPTH, MAX_REQUEST_BODY_BYTES } from './config.ts';
import {
  AppError,
  badRequest,
  clip,
  invalid,
  notFound,
  payloadTooLarge,
  unauthorized,
  unsupportedMediaType,
  validationError,
} from './errors.ts';
import { loggedHandler, logger } from './logger.ts';
import { isMultipart, type MultipartOptions } from './multipart.ts';
import { type Permission, requireAccess } from './permissions.ts';
import { ILL_FORMED_UNICODE, NOT_FOUND_IN_PATH } from './schemas.ts';

/**
 * The HTTP wrapper every route uses. A route declares its zod schemas, the permission it needs and
 * one `handle` function; parsing, authorization, serialisation and the error body happen here once.
 */
export interface RouteInput<B, Q, P> {
  body: B;
  /**
   * The body exactly as parsed from JSON, for storing what the client sent losslessly (for a multipart
   * body, what the route's `toBody` made of its parts).
   */
  rawBody: unknown;
  query: Q;
  path: P;
  auth: AuthContext;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  requestId: string;
}

export interface RouteDefinition<B, Q, P> {
  body?: ZodType<B>;
  /** An absent body (or JSON `null`) reads as `{}`: for a body whose every field is optional. */
  optionalBody?: boolean;
  query?: ZodType<Q>;
  path?: ZodType<P>;
  /**
   * What the key must be allowed: one permission, checked before the body is read (a 403 comes before
   * any 400), or a function of the validated body giving every permission it needs (e.g. edit on each
   * entity type a folder move names), checked after validation and before `handle`; the first one
   * missing answers the 403 naming its type. `any-key`: every valid key, whatever it may do (GET /me,
   * which tells a key what it may do).
   */
  permission: Permission | ((body: B) => readonly Permission[]) | 'any-key';
  /**
   * The entity type a route with a body-dependent permission is listed under in the OpenAPI document
   * (a fixed permission's own type otherwise).
   */
  tag?: EntityType;
  /**
   * Where the API key is: `header` (default; the gateway's authorizer checked it) or `body` (`api_key`
   * in the JSON body, checked here; the route's table row must say `auth: 'body'` too). The body's
   * `api_key` never reaches `handle`: it is removed from `body` and `rawBody`.
   */
  auth?: RouteAuth;
  /**
   * How a route that checks its key itself (`auth: 'body'` or `'basic'`) looks a key up: the auth
   * feature's `authenticateApiKey` (the authorizer's lookup and cache). Given by the route, so the
   * platform uses no feature.
   */
  keyCheck?: KeyCheck;
  /**
   * The body's `api_key` is the route's own data (a provider key to store), not a credential of the
   * caller: it is kept in `body` and `rawBody` (header-key routes only). The route must never echo,
   * log or store it in clear.
   */
  bodyApiKeyIsData?: boolean;
  /**
   * The route reads its body's bytes itself (OTLP's protobuf or JSON, maybe gzipped): `rawBody` is a
   * Buffer (decoded from base64 when API Gateway passed a binary media type), `body` is undefined and the
   * route checks the Content-Type. Bodies over the request limit are still a 413 here. `contentTypes`
   * and `documented` (the JSON form's schema) only describe it in the OpenAPI document.
   */
  bytesBody?: { contentTypes: readonly string[]; documented: ZodType };
  /**
   * Also accept `multipart/form-data` (parsed with limits, turned into the value `body` validates by
   * `toBody`); a route without it answers 415 to multipart. Header-key routes only.
   */
  multipart?: MultipartOptions;
  /**
   * Success statuses that may answer bytes (an HttpResponse with a Buffer body) instead of their JSON
   * body, with the bytes' content type, e.g. `{ 200: 'application/zip' }`: documented in the OpenAPI
   * document, and the local gateway's answer check takes bytes only for them.
   */
  binaryResponses?: Readonly<Record<number, string>>;
  /** Success status when `handle` returns a plain value. */
  status?: number;
  /**
   * The success bodies by status code: the OpenAPI document is generated from them and tests check
   * real answers against them.
   */
  responses?: Readonly<Record<number, ZodType>>;
  /**
   * Error statuses the route can answer beyond those its declaration implies (the OpenAPI document adds
   * 401, 403, 422, 429 and 500 to every route, 400/413/415 to a route reading a body and 404 to one
   * with path parameters), e.g. 409 for a conflict or 404 for an id given in the body.
   */
  errors?: readonly number[];
  handle(input: RouteInput<B, Q, P>): Promise<unknown>;
}

/**
 * Returned by `handle` when the status depends on the outcome (e.g. 201 or 202). A Buffer body is sent
 * as binary: base64 with `isBase64Encoded`, under the Content-Type of `headers` (application/octet-stream
 * when it names none). API Gateway turns it back into bytes for a type in its binary media types
 * (BINARY_MEDIA_TYPES) when the client's Accept header names that type.
 */
export class HttpResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;

  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

export type HttpHandler = ((
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>) & {
  /** The route's declaration, read by the OpenAPI generator. */
  readonly definition: RouteDefinition<unknown, unknown, unknown>;
};

const JSON_HEADERS = { 'Content-Type': 'application/json' };

// One wording for a missing field across every schema, as PromptLayer's API words it.
z.config({
  customError: (issue) =>
    issue.code === 'invalid_type' && issue.input === undefined ? 'Field required' : undefined,
});

export function httpRoute<B = undefined, Q = undefined, P = undefined>(
  def: RouteDefinition<B, Q, P>,
): HttpHandler {
  if (keyCheckedByHandler(def.auth) && !def.keyCheck)
    throw new Error(`A route with auth '${def.auth}' needs the keyCheck that looks its key up`);
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use({
      onError: async (request) => {
        request.response = errorResponse(request.error, request.context);
      },
    })
    .handler(async (event, context) => {
      const input = await parseRequest(def, event, context);
      const result = await def.handle(input);
      if (!(result instanceof HttpResponse)) return json(def.status ?? 200, result);
      return Buffer.isBuffer(result.body)
        ? binary(result.status, result.body, result.headers)
        : json(result.status, result.body, result.headers);
    });
  // API Gateway's request id (the client's `x-amzn-RequestId` answer header) on every line, as Powertools'
  // correlation id for a REST API names it.
  const logged = loggedHandler(handler, (event) => ({ correlation_id: event.requestContext?.requestId }));
  return Object.assign(logged, { definition: def }) as unknown as HttpHandler;
}

async function parseRequest<B, Q, P>(
  def: RouteDefinition<B, Q, P>,
  event: APIGatewayProxyEvent,
  context: Context,
): Promise<RouteInput<B, Q, P>> {
  const headers = lowerCaseHeaders(event.headers);
  // A body's `api_key` is a credential, on any route: taken out before anything else sees the body, so it
  // is never validated into an echo, stored (log-request keeps undefined fields) or logged.
  let rawBody: unknown;
  let auth: AuthContext | undefined;
  if (def.auth === 'body') {
    let bodyKey: unknown;
    ({ api_key: bodyKey, ...rawBody } = readJsonBody(event, headers, def.optionalBody));
    auth = await authenticateBodyKey(def.keyCheck!, bodyKey, headers['x-api-key']);
  } else if (def.auth === 'basic') {
    auth = await authenticateBasicKey(def.keyCheck!, headers.authorization, headers['x-api-key']);
  } else {
    auth = fromAuthorizerContext(event.requestContext?.authorizer);
    // API Gateway only invokes a route after the authorizer allowed the key; a missing context is a fault.
    if (!auth) throw new Error('Route invoked without an authorizer context');
  }
  if (typeof def.permission === 'object') requireAccess(auth, ...def.permission);
  if (def.bytesBody) rawBody = readBytesBody(event);
  else if (def.auth !== 'body' && def.body) {
    if (def.multipart && isMultipart(headers['content-type'])) {
      rawBody = await readMultipartBody(event, headers['content-type']!, def.multipart);
    } else {
      const parsed = readJsonBody(event, headers, def.optionalBody, def.multipart !== undefined);
      const { api_key: _credential, ...rest } = parsed;
      rawBody = def.bodyApiKeyIsData ? parsed : rest;
    }
  }
  const body = def.body ? validate(def.body, rawBody, 'body') : (undefined as B);
  if (typeof def.permission === 'function')
    for (const [entity, access] of def.permission(body)) requireAccess(auth, entity, access);
  return {
    body,
    rawBody,
    query: def.query ? validate(def.query, queryObject(event), 'query') : (undefined as Q),
    path: def.path
      ? validate(def.path, decodePathParameters(event.pathParameters), 'path')
      : (undefined as P),
    auth,
    headers,
    requestId: context.awsRequestId,
  };
}

/**
 * The caller of a body-key route: the body's `api_key`, else the X-API-KEY header, checked with the
 * authorizer's lookup and cache. Missing: 401 "Missing API key"; unknown, revoked or not a string: 401
 * "Invalid API key", as the gateway answers for header keys.
 */
async function authenticateBodyKey(
  keyCheck: KeyCheck,
  bodyKey: unknown,
  headerKey: string | undefined,
): Promise<AuthContext> {
  const key = bodyKey ?? headerKey;
  if (key === undefined || key === null || key === '') throw unauthorized('Missing API key');
  const auth = typeof key === 'string' ? await keyCheck(key) : undefined;
  if (!auth) throw unauthorized('Invalid API key');
  return auth;
}

/**
 * The caller of a Basic-auth route (the Langfuse-compatible OTLP alias): the password of
 * `Authorization: Basic base64(<anything>:<API key>)`, else the X-API-KEY header, checked with the
 * authorizer's lookup and cache, answered as a header key is.
 */
async function authenticateBasicKey(
  keyCheck: KeyCheck,
  authorization: string | undefined,
  headerKey: string | undefined,
): Promise<AuthContext> {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  const decoded = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8') : undefined;
  const password = decoded?.includes(':') ? decoded.slice(decoded.indexOf(':') + 1) : undefined;
  return authenticateBodyKey(keyCheck, password || undefined, headerKey);
}

/** API Gateway's REST API hands path parameters over still percent-encoded (`my%20prompt`). */
function decodePathParameters(parameters: APIGatewayProxyEvent['pathParameters']): Record<string, string> {
  const decoded: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(parameters ?? {})) {
    try {
      decoded[name] = decodeURIComponent(value ?? '');
    } catch {
      throw badRequest(`Malformed percent-encoding in path parameter ${name}`, 'invalid_path');
    }
    // Path parameters are identifiers: a lone surrogate would name another entity once encoded.
    if (!decoded[name].isWellFormed()) throw invalid(['path', name], ILL_FORMED_UNICODE);
  }
  return decoded;
}

function lowerCaseHeaders(headers: APIGatewayProxyEvent['headers'] | null): Record<string, string> {
  const result: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(headers ?? {}))
    if (value !== undefined) result[name.toLowerCase()] = value;
  return result;
}

const JSON_CONTENT_TYPE = /^application\/([\w.+-]+\+)?json\b/i;
/**
 * Read as JSON too, on JSON-only routes: what `fetch` sends for a string body without a header. A route
 * that also takes multipart (skill collections) answers it 415, as PromptLayer documents there.
 */
const PLAIN_TEXT_CONTENT_TYPE = /^text\/plain\b/i;

/**
 * A multipart body: its bytes (base64 when API Gateway lists the type as binary, as the stack does), its
 * parts within the route's limits, then the route's own reading of them.
 */
async function readMultipartBody(
  event: APIGatewayProxyEvent,
  contentType: string,
  multipart: MultipartOptions,
): Promise<unknown> {
  const bytes = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf-8');
  if (bytes.length > MAX_REQUEST_BODY_BYTES) {
    throw payloadTooLarge(`Request body exceeds ${MAX_REQUEST_BODY_BYTES} bytes`);
  }
  return multipart.toBody(await multipart.parse(bytes, contentType, multipart));
}

function readBytesBody(event: APIGatewayProxyEvent): Buffer {
  const bytes = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf-8');
  if (bytes.length > MAX_REQUEST_BODY_BYTES) {
    throw payloadTooLarge(`Request body exceeds ${MAX_REQUEST_BODY_BYTES} bytes`);
  }
  return bytes;
}

function readJsonBody(
  event: APIGatewayProxyEvent,
  headers: Record<string, string>,
  optional = false,
  multipartToo = false,
): Record<string, unknown> {
  const contentType = headers['content-type'];
  const readAsJson = (type: string) =>
    JSON_CONTENT_TYPE.test(type) || (!multipartToo && PLAIN_TEXT_CONTENT_TYPE.test(type));
  if (contentType && !readAsJson(contentType.trim())) {
    throw unsupportedMediaType(
      multipartToo
        ? 'Request body must be JSON (Content-Type: application/json) or multipart/form-data'
        : 'Request body must be JSON (Content-Type: application/json)',
    );
  }
  const text = event.isBase64Encoded
    ? Buffer.from(event.body ?? '', 'base64').toString('utf-8')
    : (event.body ?? '');
  if (Buffer.byteLength(text, 'utf-8') > MAX_REQUEST_BODY_BYTES) {
    throw payloadTooLarge(`Request body exceeds ${MAX_REQUEST_BODY_BYTES} bytes`);
  }
  if (text.trim() === '') {
    if (optional) return {};
    throw badRequest('Request body is required', 'invalid_json');
  }
  let parsed: unknown;
  try {
    // A leading byte-order mark is allowed (RFC 8259 lets parsers ignore it); JSON.parse would refuse it.
    parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    throw badRequest('Request body is not valid JSON', 'invalid_json');
  }
  if (parsed === null && optional) return {};
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest('Request body must be a JSON object', 'invalid_body');
  }
  if (exceedsDepth(parsed, MAX_JSON_DEPTH)) {
    throw badRequest(`Request body is nested more than ${MAX_JSON_DEPTH} levels deep`, 'json_too_deep');
  }
  return parsed as Record<string, unknown>;
}

/** Iterative, so a hostile body cannot exhaust the stack here either. */
function exceedsDepth(root: object, limit: number): boolean {
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (depth > limit) return true;
    for (const child of Object.values(value as object)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * Query parameters: a repeated key becomes an array, a single one stays a string. Names are client
 * text, so the result has no prototype and lookups are own-property only: `?constructor=` or
 * `?__proto__=` are parameters like any other.
 */
function queryObject(event: APIGatewayProxyEvent): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = Object.create(null);
  const multi = event.multiValueQueryStringParameters ?? {};
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
    const values = Object.hasOwn(multi, name) ? multi[name] : undefined;
    result[name] = values && values.length > 1 ? values : (value ?? '');
  }
  return result;
}

export function validate<T>(schema: ZodType<T>, value: unknown, where: 'body' | 'query' | 'path'): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const pathNamesNothing = result.error.issues.find(
    (issue) => issue.code === 'custom' && issue.params?.notFoundInPath === NOT_FOUND_IN_PATH.notFoundInPath,
  );
  if (where === 'path' && pathNamesNothing) {
    const name = String(pathNamesNothing.path[0]);
    const given = (value as Record<string, string>)[name] ?? '';
    throw notFound(`Not found: ${name} "${clip(given, 100)}"`);
  }
  throw validationError(result.error, [where]);
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult {
  // A 204 has no body (`responses: { 204: z.undefined() }`).
  if (status === 204) return { statusCode: status, headers, body: '' };
  return { statusCode: status, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/** Bytes answered as API Gateway's proxy integration takes them: base64, flagged. */
function binary(status: number, body: Buffer, headers: Record<string, string>): APIGatewayProxyResult {
  const hasType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  return {
    statusCode: status,
    headers: hasType ? headers : { 'Content-Type': 'application/octet-stream', ...headers },
    body: body.toString('base64'),
    isBase64Encoded: true,
  };
}

/** The one place errors become HTTP: internals of a 5xx are logged, never returned. */
export function errorResponse(error: unknown, context?: Context): APIGatewayProxyResult {
  if (error instanceof AppError) {
    logger.warn('Request rejected', {
      status: error.status,
      code: error.code,
      requestId: context?.awsRequestId,
    });
    // Messages and locations can quote what the client sent: bound them, whatever the client sent.
    const body: Record<string, unknown> = {
      ...error.fields,
      success: false,
      message: clip(error.message, 1024),
      error: error.code,
    };
    if (error.detail) {
      body.detail = error.detail.slice(0, 100).map((item) => ({
        ...item,
        loc: item.loc.map((part) => (typeof part === 'string' ? clip(part, 2048) : part)),
        msg: clip(item.msg, 1024),
      }));
    }
    return json(error.status, body);
  }
  logger.error('Unhandled error', { error: error as Error, requestId: context?.awsRequestId });
  return json(500, { success: false, message: 'Internal error', error: 'internal_error' });
}
