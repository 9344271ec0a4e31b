import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod';
import type { RouteAuth } from '#shared/platform/auth-context.ts';
import type { HttpHandler, RouteDefinition } from '#shared/platform/http.ts';
import { MAX_MULTIPART_FIELD_BYTES } from '#shared/platform/multipart.ts';
import { errorBodySchema } from '#shared/platform/response-schemas.ts';
import type { RouteDef } from '../route-types.ts';

/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the route table (method, path, handler) and
 * each handler's `httpRoute` declaration: its body, query and path schemas (as the client sends them,
 * zod's `io: 'input'`), its success bodies (`responses`, `io: 'output'`), its permission and the error
 * statuses it can answer. Schemas with a `meta({ id })` become named components. Only this generator and
 * the local runtime import handler modules.
 */

type JsonSchema = Record<string, unknown>;
type Definition = RouteDefinition<unknown, unknown, unknown>;

export interface DocumentedRoute {
  route: RouteDef;
  definition: Definition;
  /** The handler's doc comment, if any: the operation's summary and description. */
  comment?: string;
}

/**
 * How a route authenticates: the X-API-KEY header (default), or an `api_key` field of its JSON body
 * (the SDK's tracking calls). Reads the route row's `auth` field.
 */
export function routeAuth(route: RouteDef): RouteAuth {
  return route.auth ?? 'header';
}

export const API_KEY_SECURITY_SCHEME = 'ApiKeyHeader';
export const BASIC_KEY_SECURITY_SCHEME = 'ApiKeyBasic';

export interface OpenApiOptions {
  /** Defaults to the service that serves the document (`/`). */
  servers?: { url: string; description?: string }[];
  version?: string;
}

/** Imports each route's handler and reads its declaration and doc comment. */
export async function loadDocumentedRoutes(
  routes: readonly RouteDef[],
  root: string,
  load: (file: string) => Promise<unknown> = async (file) =>
    ((await import(pathToFileURL(join(root, file)).href)) as { handler?: unknown }).handler,
): Promise<DocumentedRoute[]> {
  return Promise.all(
    routes.map(async (route) => {
      const handler = (await load(route.handler)) as Partial<HttpHandler> | undefined;
      const definition = handler?.definition;
      if (!definition) throw new Error(`${route.handler} has no httpRoute definition`);
      return { route, definition, comment: handlerComment(readFileSync(join(root, route.handler), 'utf8')) };
    }),
  );
}

/** The doc comment right above `export const handler`, as plain text. */
export function handlerComment(source: string): string | undefined {
  const match = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export const handler\b/.exec(source);
  if (!match?.[1]) return undefined;
  const text = match[1]
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text || undefined;
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
};

/** The shared error answers, by status: each one a component under `responses`. */
const ERROR_RESPONSES: Record<number, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: 'The body is not a JSON object, or a value is refused' },
  401: { name: 'Unauthorized', description: 'Missing or invalid API key' },
  403: { name: 'Forbidden', description: 'The API key lacks the permission' },
  404: { name: 'NotFound', description: 'No such entity in the key’s workspace' },
  409: {
    name: 'Conflict',
    description: 'Conflicts with the current state (e.g. a name or external id in use)',
  },
  413: { name: 'PayloadTooLarge', description: 'The body (or a value in it) is over its size limit' },
  415: { name: 'UnsupportedMediaType', description: 'The body is not JSON' },
  422: {
    name: 'ValidationError',
    description: 'The body, query or path fails validation; `detail` lists each field',
  },
  429: { name: 'Throttled', description: 'Too many requests' },
  500: { name: 'InternalError', description: 'Unexpected failure (logged; no internals answered)' },
  502: { name: 'BadGateway', description: 'What the route runs on could not start (the sandbox); try again' },
};

/** The error statuses of a route: those its declaration implies, plus those it names in `errors`. */
export function errorStatuses(documented: DocumentedRoute): number[] {
  const { route, definition } = documented;
  const statuses = new Set<number>([401, 403, 422, 429, 500, ...(definition.errors ?? [])]);
  if (definition.body || definition.bytesBody || routeAuth(route) === 'body')
    for (const status of [400, 413, 415]) statuses.add(status);
  if (pathParameterNames(route.path).length > 0) {
    statuses.add(400); // malformed percent-encoding
    statuses.add(404);
  }
  return [...statuses].sort((a, b) => a - b);
}

const pathParameterNames = (path: string) => [...path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1] ?? '');

export function operationId(documented: DocumentedRoute): string {
  const base = documented.route.handler.replace(/^.*\//, '').replace(/\.ts$/, '');
  return base.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());
}

/** "POST /path: records a thing. More." -> "Records a thing." and the whole text. */
function summaryAndDescription(documented: DocumentedRoute): { summary: string; description?: string } {
  const comment = (documented.comment ?? '')
    .replace(/^(GET|POST|PUT|PATCH|DELETE)\s+\S+/, '')
    .replace(/^\s*[:.]\s*/, '')
    .trim();
  const fallback = operationId(documented)
    .replace(/([A-Z])/g, ' $1')
    .toLowerCase();
  const text = comment ? comment.charAt(0).toUpperCase() + comment.slice(1) : '';
  const firstSentence = /^.*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text;
  const summary = (firstSentence || fallback.charAt(0).toUpperCase() + fallback.slice(1)).replace(/\.$/, '');
  return text && text !== firstSentence ? { summary, description: text } : { summary };
}

const TAGS: Record<string, string> = {
  request_logs: 'Request logs',
  prompts: 'Prompt templates',
  datasets: 'Datasets',
};

/** Converts zod schemas to JSON Schema, hoisting named and recursive parts into `components.schemas`. */
class SchemaRegistry {
  readonly components: Record<string, JsonSchema> = {};
  private readonly texts = new Map<string, string>();

  convert(schema: z.core.$ZodType, io: 'input' | 'output', owner: string): JsonSchema {
    const json = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      // Transforms and refinements have no JSON Schema: the document shows their input (requests) or
      // what they answer (responses); anything else unrepresentable stays open ({}).
      unrepresentable: 'any',
      cycles: 'ref',
      reused: 'inline',
      override: (ctx) => {
        // `format: date-time` says it; zod's long equivalent pattern would only clutter the page.
        if (ctx.jsonSchema.format === 'date-time') delete ctx.jsonSchema.pattern;
        // z.int()'s own bounds (the safe integers) say nothing a client needs (~20 KB at ~800 integers).
        if (ctx.jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete ctx.jsonSchema.minimum;
        if (ctx.jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete ctx.jsonSchema.maximum;
        if (io === 'output') openObjects(ctx);
      },
    }) as JsonSchema;
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
    delete json.$defs;
    const names = new Map<string, string>();
    for (const name of Object.keys(defs)) {
      names.set(name, name.startsWith('__') ? `${owner}_${name.replace(/^_+/, '')}` : name);
    }
    // A schema that refers to itself: the root becomes a component too.
    if (JSON.stringify(json).includes('"$ref":"#"')) names.set('#', `${owner}_root`);
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value === null || typeof value !== 'object') return value;
      const out: JsonSchema = {};
      for (const [key, inner] of Object.entries(value)) {
        if (key === '$ref' && typeof inner === 'string') {
          const target = inner === '#' ? '#' : inner.replace(/^#\/\$defs\//, '');
          const renamed = names.get(target);
          out[key] = renamed ? `#/components/schemas/${renamed}` : inner;
        } else out[key] = rewrite(inner);
      }
      return out;
    };
    // Names are settled first (a clash renames), then every reference is rewritten to them.
    for (const [name, def] of Object.entries(defs)) names.set(name, this.claim(names.get(name)!, def, io));
    if (names.has('#')) names.set('#', this.claim(names.get('#')!, json, io));
    for (const [name, def] of Object.entries(defs))
      this.components[names.get(name)!] = rewrite(def) as JsonSchema;
    const root = rewrite(json) as JsonSchema;
    if (names.has('#')) {
      const name = names.get('#')!;
      this.components[name] = root;
      return { $ref: `#/components/schemas/${name}` };
    }
    return root;
  }

  /** The component name for `def`: `name`, unless another schema has it (then `name_output`, ...). */
  private claim(name: string, def: JsonSchema, io: string): string {
    const text = JSON.stringify(def);
    for (let i = 0; ; i++) {
      const candidate = i === 0 ? name : i === 1 ? `${name}_${io}` : `${name}_${io}${i}`;
      const held = this.texts.get(candidate);
      if (held === undefined || held === text) {
        this.texts.set(candidate, text);
        return candidate;
      }
    }
  }
}

/**
 * zod writes `additionalProperties: false` for the output of a plain (stripping) object. Answers are
 * documented open instead: a client must ignore fields it does not know, and fields may be added.
 */
function openObjects(ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: JsonSchema }): void {
  const def = ctx.zodSchema._zod.def as { type: string; catchall?: unknown };
  if (def.type === 'object' && def.catchall === undefined && ctx.jsonSchema.additionalProperties === false) {
    delete ctx.jsonSchema.additionalProperties;
  }
}

/** Adds the `api_key` field to the body schema of a route that authenticates with it. */
function withBodyApiKey(schema: JsonSchema | undefined): JsonSchema {
  const base = schema ?? { type: 'object', properties: {} };
  const properties = { ...((base.properties ?? {}) as Record<string, JsonSchema>) };
  properties.api_key ??= {
    type: 'string',
    description: 'The API key: this route reads it from the body instead of the X-API-KEY header',
  };
  const required = new Set([...((base.required ?? []) as string[]), 'api_key']);
  return { ...base, type: 'object', properties, required: [...required] };
}

/**
 * The request body's media types: JSON, and for a route that declares `multipart` the
 * `multipart/form-data` alternative: one file part (under any of its names) and its text parts.
 */
function requestContent(definition: Definition, body: JsonSchema): Record<string, unknown> {
  const content: Record<string, unknown> = { 'application/json': { schema: body } };
  for (const type of definition.bytesBody?.contentTypes ?? [])
    content[type] ??= { schema: { type: 'string', format: 'binary' } };
  const multipart = definition.multipart;
  if (!multipart) return content;
  const properties: Record<string, JsonSchema> = {};
  for (const name of multipart.fileFields) {
    properties[name] = {
      type: 'string',
      contentMediaType: 'application/octet-stream',
      description: `The file (at most ${multipart.maxFileBytes} bytes); one file per request, under one of: ${multipart.fileFields.join(', ')}`,
    };
  }
  for (const name of multipart.textFields) {
    properties[name] = {
      type: 'string',
      maxLength: MAX_MULTIPART_FIELD_BYTES,
      description: `A text part (at most ${MAX_MULTIPART_FIELD_BYTES} bytes)`,
    };
  }
  content['multipart/form-data'] = { schema: { type: 'object', properties } };
  return content;
}

export function buildOpenApiDocument(routes: readonly DocumentedRoute[], options: OpenApiOptions = {}) {
  const schemas = new SchemaRegistry();
  const errorSchema = schemas.convert(errorBodySchema, 'output', 'Error');
  const paths: Record<string, Record<string, unknown>> = {};
  const usedIds = new Set<string>();
  const usedErrors = new Set<number>();
  const tags = new Set<string>();

  for (const documented of routes) {
    const { route, definition } = documented;
    let id = operationId(documented);
    if (usedIds.has(id)) id = `${id}${route.method.charAt(0)}${route.method.slice(1).toLowerCase()}`;
    usedIds.add(id);

    const parameters: unknown[] = [];
    const pathSchema = definition.path ? schemas.convert(definition.path, 'input', `${id}_path`) : {};
    const pathProperties = (pathSchema.properties ?? {}) as Record<string, JsonSchema>;
    for (const name of pathParameterNames(route.path)) {
      parameters.push({
        name,
        in: 'path',
        required: true,
        schema: pathProperties[name] ?? { type: 'string' },
      });
    }
    if (definition.query) {
      const query = schemas.convert(definition.query, 'input', `${id}_query`);
      const required = new Set((query.required ?? []) as string[]);
      for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, JsonSchema>)) {
        const { description, ...rest } = schema;
        parameters.push({
          name,
          in: 'query',
          required: required.has(name),
          ...(description ? { description } : {}),
          schema: rest,
        });
      }
    }

    const bodyAuth = routeAuth(route) === 'body';
    const documentedBody = definition.body ?? definition.bytesBody?.documented;
    let body = documentedBody ? schemas.convert(documentedBody, 'input', `${id}_body`) : undefined;
    if (bodyAuth) body = withBodyApiKey(body);

    const responses: Record<string, unknown> = {};
    for (const [status, schema] of Object.entries(definition.responses ?? {})) {
      if (status === '204') {
        responses[status] = { description: STATUS_TEXT[204] };
        continue;
      }
      responses[status] = {
        description: STATUS_TEXT[Number(status)] ?? 'Success',
        content: {
          'application/json': { schema: schemas.convert(schema, 'output', `${id}_${status}`) },
        },
      };
    }
    for (const [status, type] of Object.entries(definition.binaryResponses ?? {})) {
      responses[status] ??= { description: STATUS_TEXT[Number(status)] ?? 'Success', content: {} };
      // OpenAPI 3.1 describes raw bytes by their media type alone, without a schema.
      (responses[status] as { content: Record<string, unknown> }).content[type] = {};
    }
    for (const status of errorStatuses(documented)) {
      usedErrors.add(status);
      responses[String(status)] = { $ref: `#/components/responses/${ERROR_RESPONSES[status]?.name}` };
    }

    const fixed = typeof definition.permission === 'object' ? definition.permission : undefined;
    const entity = fixed?.[0] ?? definition.tag ?? 'other';
    const tag = TAGS[entity] ?? entity;
    tags.add(tag);
    const { summary, description } = summaryAndDescription(documented);
    const permission = fixed
      ? `Needs the \`${fixed[1]}\` permission on \`${fixed[0]}\`.`
      : definition.permission === 'any-key'
        ? 'Any valid key may call it, whatever its permissions.'
        : 'Needs the permissions that the body names (each entity type it names).';
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = {
      operationId: id,
      summary,
      description: [description, permission, bodyAuth ? 'Authenticated by `api_key` in the body.' : '']
        .filter(Boolean)
        .join('\n\n'),
      tags: [tag],
      ...(bodyAuth ? { security: [] } : {}),
      ...(routeAuth(route) === 'basic'
        ? { security: [{ [BASIC_KEY_SECURITY_SCHEME]: [] }, { [API_KEY_SECURITY_SCHEME]: [] }] }
        : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(body ? { requestBody: { required: true, content: requestContent(definition, body) } } : {}),
      responses,
    };
  }

  const errorResponses: Record<string, unknown> = {};
  for (const status of [...usedErrors].sort((a, b) => a - b)) {
    const { name, description } = ERROR_RESPONSES[status] ?? { name: `Error${status}`, description: 'Error' };
    errorResponses[name] = { description, content: { 'application/json': { schema: errorSchema } } };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'promptops API',
      version: options.version ?? '0.1.0',
      description:
        'A PromptLayer-compatible API for request logs, prompt templates and datasets. Every route takes ' +
        'its API key in the `X-API-KEY` header, unless it says otherwise; every error answers the `Error` body.',
    },
    servers: options.servers ?? [{ url: '/', description: 'The service serving this document' }],
    security: [{ [API_KEY_SECURITY_SCHEME]: [] }],
    tags: [...tags].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        [API_KEY_SECURITY_SCHEME]: { type: 'apiKey', in: 'header', name: 'X-API-KEY' },
        [BASIC_KEY_SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'basic',
          description: 'Any user name; the API key as the password (the Langfuse-compatible OTLP alias)',
        },
      },
      schemas: schemas.components,
      responses: errorResponses,
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
