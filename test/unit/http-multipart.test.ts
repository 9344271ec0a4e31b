import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { answerMismatch } from '#infra/openapi/answers.ts';
import { buildOpenApiDocument } from '#infra/openapi/generate.ts';
import type { RouteDef } from '#infra/routes.ts';
import { type Permissions, toAuthorizerContext } from '#shared/platform/auth-context.ts';
import { badRequest } from '#shared/platform/errors.ts';
import { type HttpHandler, HttpResponse, httpRoute } from '#shared/platform/http.ts';
import { logger } from '#shared/platform/logger.ts';
import { MAX_MULTIPART_FIELD_BYTES, type MultipartParts } from '#shared/platform/multipart.ts';
import { parseMultipart } from '#shared/platform/multipart-parse.ts';
import { multipartBody, type TestPart } from '#test/support/multipart.ts';

/**
 * Multipart bodies in the HTTP wrapper: a route that declares `multipart` takes JSON as before and
 * `multipart/form-data` (one file, declared text parts), turned by its `toBody` into the value its body
 * schema validates; 415 / 413 / 400 per part and limit. And binary answers (a Buffer body).
 */
const MAX_FILE = 1000;

const uploadSchema = z.object({ name: z.string().min(1), archive_bytes: z.int().optional() });

/** `metadata` | `json` holds the JSON fields; the file's size stands for what a real route would read. */
function toBody(parts: MultipartParts): unknown {
  const text = parts.fields.metadata ?? parts.fields.json;
  let metadata: unknown = {};
  if (text !== undefined) {
    try {
      metadata = JSON.parse(text);
    } catch {
      throw badRequest('The metadata part is not valid JSON', 'invalid_json');
    }
  }
  return { ...(metadata as object), archive_bytes: parts.file?.data.length };
}

const handle = vi.fn(async ({ body, rawBody }: { body: unknown; rawBody: unknown }) => ({ body, rawBody }));
const upload = httpRoute({
  body: uploadSchema,
  permission: ['prompts', 'edit'],
  multipart: {
    fileFields: ['archive', 'zip'],
    textFields: ['metadata', 'json'],
    maxFileBytes: MAX_FILE,
    parse: parseMultipart,
    toBody,
  },
  status: 201,
  responses: { 201: z.object({}) },
  handle,
});
const jsonOnly = httpRoute({
  body: uploadSchema,
  permission: ['prompts', 'edit'],
  responses: { 200: z.object({}) },
  handle: async () => ({}),
});

function event(body: Buffer | string, contentType: string | undefined, permissions?: Permissions) {
  const isBuffer = Buffer.isBuffer(body);
  return {
    resource: '/things',
    path: '/things',
    httpMethod: 'POST',
    headers: contentType ? { 'Content-Type': contentType } : {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    // As API Gateway hands over a binary media type: base64.
    body: isBuffer ? body.toString('base64') : body,
    isBase64Encoded: isBuffer,
    requestContext: {
      authorizer: {
        ...toAuthorizerContext({
          workspaceId: 42,
          userId: 7,
          userEmail: null,
          permissions: permissions ?? { prompts: 'edit' },
        }),
        principalId: 'user:7',
      },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  } as APIGatewayProxyEvent;
}

const context = { awsRequestId: 'req-1' } as Context;

async function send(route: HttpHandler, parts: TestPart[], boundary?: string, permissions?: Permissions) {
  const { body, contentType } = multipartBody(parts, boundary);
  return answer(await route(event(body, contentType, permissions), context));
}

function answer(result: APIGatewayProxyResult) {
  return { status: result.statusCode, body: JSON.parse(result.body), result };
}

const metadata = (fields: object): TestPart => ({ name: 'metadata', data: JSON.stringify(fields) });
const archive = (bytes: number, name = 'archive'): TestPart => ({
  name,
  filename: 'skills.zip',
  contentType: 'application/zip',
  data: Buffer.alloc(bytes, 0x50),
});

beforeEach(() => {
  handle.mockClear();
  vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
});

describe('multipart route: accepted bodies', () => {
  it('still takes JSON', async () => {
    const { status, body } = answer(
      await upload(event(JSON.stringify({ name: 'skills' }), 'application/json'), context),
    );
    expect(status).toBe(201);
    expect(body.body).toEqual({ name: 'skills' });
  });

  it('hands the file and text parts to toBody and validates what it makes with the body schema', async () => {
    const { status, body } = await send(upload, [metadata({ name: 'skills' }), archive(MAX_FILE)]);
    expect(status).toBe(201);
    expect(body.body).toEqual({ name: 'skills', archive_bytes: MAX_FILE });
    expect(body.rawBody).toEqual({ name: 'skills', archive_bytes: MAX_FILE });
  });

  it('takes the other declared names (`zip`, `json`) and the file before the text part', async () => {
    const { status, body } = await send(upload, [archive(3, 'zip'), { name: 'json', data: '{"name":"x"}' }]);
    expect(status).toBe(201);
    expect(body.body).toEqual({ name: 'x', archive_bytes: 3 });
  });

  it('reads a quoted boundary holding characters RFC 2046 allows (`_ . =`)', async () => {
    const { status, body } = await send(
      upload,
      [metadata({ name: 'quoted' }), archive(10)],
      'X-BOUNDARY_with.dots=and',
    );
    expect(status).toBe(201);
    expect(body.body).toEqual({ name: 'quoted', archive_bytes: 10 });
  });

  it('answers the 422 of the body schema for what toBody made', async () => {
    const { status, body } = await send(upload, [metadata({ name: '' })]);
    expect(status).toBe(422);
    expect(body).toMatchObject({ success: false, error: 'validation_error' });
    expect(body.detail[0].loc).toEqual(['body', 'name']);
  });

  it('answers the AppError toBody throws', async () => {
    const { status, body } = await send(upload, [{ name: 'metadata', data: '{not json' }]);
    expect(status).toBe(400);
    expect(body).toMatchObject({ message: 'The metadata part is not valid JSON', error: 'invalid_json' });
  });
});

describe('multipart route: refused bodies (nothing reaches the handler)', () => {
  it.each([
    ['text/xml', 'Request body must be JSON (Content-Type: application/json) or multipart/form-data'],
    ['application/zip', 'Request body must be JSON (Content-Type: application/json) or multipart/form-data'],
    [
      'multipart/mixed; boundary=x',
      'Request body must be JSON (Content-Type: application/json) or multipart/form-data',
    ],
  ])('answers 415 for a %s body', async (type, message) => {
    const { status, body } = answer(await upload(event(Buffer.from('<a/>'), type), context));
    expect({ status, body }).toEqual({
      status: 415,
      body: { success: false, message, error: 'unsupported_media_type' },
    });
  });

  it('answers 415 to multipart on a route that does not declare it', async () => {
    const { status, body } = await send(jsonOnly, [metadata({ name: 'x' })]);
    expect(status).toBe(415);
    expect(body.message).toBe('Request body must be JSON (Content-Type: application/json)');
  });

  it('answers 413 for a file one byte over the route limit', async () => {
    const { status, body } = await send(upload, [metadata({ name: 'x' }), archive(MAX_FILE + 1)]);
    expect({ status, body }).toEqual({
      status: 413,
      body: {
        success: false,
        message: `File part "archive" exceeds ${MAX_FILE} bytes`,
        error: 'payload_too_large',
      },
    });
  });

  it('answers 413 for a text part over its limit', async () => {
    const big = { name: 'metadata', data: 'x'.repeat(MAX_MULTIPART_FIELD_BYTES + 1) };
    const { status, body } = await send(upload, [big]);
    expect(status).toBe(413);
    expect(body.message).toBe(`Text part "metadata" exceeds ${MAX_MULTIPART_FIELD_BYTES} bytes`);
  });

  it.each<[string, TestPart[], string]>([
    [
      'an undeclared text part',
      [metadata({ name: 'x' }), { name: 'extra', data: '1' }],
      'Unexpected text part "extra" (expected "archive", "zip", "metadata", "json")',
    ],
    [
      'an undeclared file part',
      [{ ...archive(3), name: 'files' }],
      'Unexpected file part "files" (expected "archive", "zip", "metadata", "json")',
    ],
    ['two files', [archive(3), archive(3, 'zip')], 'A multipart body may hold only one file'],
    [
      'a text part sent twice',
      [metadata({ name: 'x' }), metadata({ name: 'y' })],
      'Text part "metadata" is sent twice',
    ],
  ])('answers 400 for %s', async (_label, parts, message) => {
    const { status, body } = await send(upload, parts);
    expect({ status, body }).toEqual({
      status: 400,
      body: { success: false, message, error: 'invalid_multipart' },
    });
    expect(handle).not.toHaveBeenCalled();
  });

  it('answers 400 for a body cut short, and for bytes that are not multipart at all', async () => {
    const { body, contentType } = multipartBody([metadata({ name: 'x' }), archive(50)]);
    for (const bytes of [body.subarray(0, body.length - 30), Buffer.from('just some text')]) {
      const { status, body: error } = answer(await upload(event(bytes, contentType), context));
      expect(status).toBe(400);
      expect(error).toEqual({
        success: false,
        message: 'Malformed multipart body: Unexpected end of form',
        error: 'invalid_multipart',
      });
    }
  });

  it('answers 400 for more parts than a file and the declared text parts, even parts it would skip', async () => {
    const junk = '--b\r\nContent-Type: text/plain\r\n\r\nno disposition\r\n';
    const body = `--b\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n{"name":"x"}\r\n${junk.repeat(3)}--b--\r\n`;
    const { status, body: error } = answer(
      await upload(event(Buffer.from(body), 'multipart/form-data; boundary=b'), context),
    );
    expect({ status, error }).toEqual({
      status: 400,
      error: {
        success: false,
        message: 'A multipart body holds at most 3 parts (expected "archive", "zip", "metadata", "json")',
        error: 'invalid_multipart',
      },
    });
  });

  it('answers 400 for a multipart content type without a boundary', async () => {
    const { body } = multipartBody([metadata({ name: 'x' })]);
    const { status, body: error } = answer(await upload(event(body, 'multipart/form-data'), context));
    expect(status).toBe(400);
    expect(error).toEqual({
      success: false,
      message: 'Malformed multipart Content-Type: Multipart: Boundary not found',
      error: 'invalid_multipart',
    });
  });

  it('checks the fixed permission before reading the body (403 before any 400)', async () => {
    const { body } = multipartBody([metadata({ name: 'x' })]);
    const { status } = answer(
      await upload(
        event(body.subarray(0, 10), 'multipart/form-data; boundary=x', { prompts: 'read' }),
        context,
      ),
    );
    expect(status).toBe(403);
  });
});

describe('binary answers', () => {
  const download = httpRoute({
    permission: ['prompts', 'read'],
    responses: { 200: z.object({ success: z.literal(true) }) },
    binaryResponses: { 200: 'application/zip' },
    handle: async () =>
      new HttpResponse(200, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0xff]), {
        'Content-Type': 'application/zip',
        'Content-Disposition': 'attachment; filename="skills.zip"',
      }),
  });

  it('answers a Buffer body base64-encoded and flagged, under the content type the route gives', async () => {
    const result = await download(event('', undefined), context);
    expect(result).toEqual({
      statusCode: 200,
      headers: {
        'Content-Type': 'application/zip',
        'Content-Disposition': 'attachment; filename="skills.zip"',
      },
      body: Buffer.from([0x50, 0x4b, 0x03, 0x04, 0xff]).toString('base64'),
      isBase64Encoded: true,
    });
  });

  it('defaults the content type of bytes to application/octet-stream', async () => {
    const bytes = httpRoute({
      permission: ['prompts', 'read'],
      handle: async () => new HttpResponse(200, Buffer.from('abc')),
    });
    const result = await bytes(event('', undefined), context);
    expect(result.headers).toEqual({ 'Content-Type': 'application/octet-stream' });
    expect(Buffer.from(result.body, 'base64').toString()).toBe('abc');
  });

  it('checks bytes only against the statuses that declare them', () => {
    expect(answerMismatch(download, 200, Buffer.from('PK'))).toBeUndefined();
    expect(answerMismatch(download, 201, Buffer.from('PK'))).toMatch(/201 with bytes.*declared: 200/);
    expect(answerMismatch(jsonOnly, 200, Buffer.from('PK'))).toMatch(/declared: none/);
  });

  it('are documented in OpenAPI beside the JSON body, and so is a multipart request body', () => {
    const route = (method: 'GET' | 'POST', path: string) =>
      ({ method, path, handler: `functions/http/${path.slice(1)}.ts`, table: 'read' }) as RouteDef;
    const doc = buildOpenApiDocument([
      { route: route('GET', '/downloads'), definition: download.definition },
      { route: route('POST', '/uploads'), definition: upload.definition },
    ]) as Record<string, any>;
    expect(Object.keys(doc.paths['/downloads'].get.responses['200'].content)).toEqual([
      'application/json',
      'application/zip',
    ]);
    const content = doc.paths['/uploads'].post.requestBody.content;
    expect(Object.keys(content)).toEqual(['application/json', 'multipart/form-data']);
    expect(content['multipart/form-data'].schema).toMatchObject({
      type: 'object',
      properties: {
        archive: { type: 'string', contentMediaType: 'application/octet-stream' },
        zip: { type: 'string', contentMediaType: 'application/octet-stream' },
        metadata: { type: 'string', maxLength: MAX_MULTIPART_FIELD_BYTES },
        json: { type: 'string' },
      },
    });
  });
});
