import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { isBinaryMediaType, LocalGateway, type RouteHandler } from '#infra/local/gateway.ts';
import { answerMismatch } from '#infra/openapi/answers.ts';
import type { RouteDef } from '#infra/routes.ts';
import { toAuthorizerContext } from '#shared/platform/auth-context.ts';
import { HttpResponse, httpRoute } from '#shared/platform/http.ts';
import { parseMultipart } from '#shared/platform/multipart-parse.ts';
import { multipartBody } from '#test/support/multipart.ts';

/**
 * The local gateway hands bodies over as API Gateway does with the stack's binary media types
 * (multipart/form-data and application/zip arrive base64 with `isBase64Encoded`, any other type as text)
 * and writes a function's base64 answer back as bytes. Real sockets, fake routes.
 */
const ZIP_BYTES = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff, 0xfe, 0x80, 0x0d, 0x0a]);

const seen: APIGatewayProxyEvent[] = [];
const echo: RouteHandler = async (event) => {
  seen.push(event);
  return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{}' };
};
const upload = httpRoute({
  body: z.object({ name: z.string(), bytes: z.string() }),
  permission: ['prompts', 'edit'],
  multipart: {
    fileFields: ['archive'],
    textFields: ['metadata'],
    maxFileBytes: 1024,
    parse: parseMultipart,
    toBody: (parts) => ({
      name: JSON.parse(parts.fields.metadata ?? '{}').name,
      bytes: parts.file?.data.toString('hex') ?? '',
    }),
  },
  status: 201,
  responses: { 201: z.object({ name: z.string(), bytes: z.string() }) },
  handle: async ({ body }) => body,
});
const download = httpRoute({
  permission: ['prompts', 'read'],
  responses: { 200: z.object({}) },
  binaryResponses: { 200: 'application/zip' },
  handle: async () => new HttpResponse(200, ZIP_BYTES, { 'Content-Type': 'application/zip' }),
});

const row = (method: RouteDef['method'], path: string, handler: string): RouteDef => ({
  method,
  path,
  handler,
  table: 'read',
});
const HANDLERS: Record<string, RouteHandler> = { echo, upload, download };

let gateway: LocalGateway;
let baseUrl: string;

beforeAll(async () => {
  gateway = new LocalGateway({
    routes: [
      row('POST', '/echo', 'echo'),
      row('POST', '/upload', 'upload'),
      row('GET', '/download', 'download'),
    ],
    loadHandler: async (file) => HANDLERS[file]!,
    authorizer: async () => ({
      principalId: 'user:7',
      policyDocument: { Version: '2012-10-17', Statement: [{ Action: '*', Effect: 'Allow', Resource: '*' }] },
      context: {
        ...toAuthorizerContext({
          workspaceId: 1,
          userId: 7,
          userEmail: null,
          permissions: { prompts: 'edit' },
        }),
      },
    }),
    authorizerCacheTtlSeconds: 300,
    maxBodyBytes: 6 * 1024 * 1024,
    maxPayloadBytes: 6 * 1024 * 1024,
    checkAnswer: answerMismatch,
  });
  baseUrl = await gateway.listen(0);
});

afterAll(() => gateway.close());

const post = (path: string, body: Buffer | string, contentType: string) =>
  fetch(new URL(path, baseUrl), {
    method: 'POST',
    headers: { 'X-API-KEY': 'key', 'Content-Type': contentType },
    body,
  });

describe('local gateway: request bodies', () => {
  it('hands a multipart body over base64-encoded, byte for byte', async () => {
    const { body, contentType } = multipartBody([
      { name: 'archive', filename: 'a.zip', contentType: 'application/zip', data: ZIP_BYTES },
    ]);
    await post('/echo', body, contentType);
    const event = seen.at(-1)!;
    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body!, 'base64').equals(body)).toBe(true);
  });

  it('hands JSON and other non-binary types over as text', async () => {
    for (const type of ['application/json', 'application/octet-stream', 'text/csv']) {
      await post('/echo', '{"a":1}', type);
      expect(seen.at(-1)).toMatchObject({ isBase64Encoded: false, body: '{"a":1}' });
    }
  });

  it('gets a multipart upload with binary file bytes through to the route intact', async () => {
    const form = new FormData();
    form.append('metadata', JSON.stringify({ name: 'skills' }));
    form.append('archive', new Blob([ZIP_BYTES], { type: 'application/zip' }), 'skills.zip');
    const response = await fetch(new URL('/upload', baseUrl), {
      method: 'POST',
      headers: { 'X-API-KEY': 'key' },
      body: form,
    });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 201,
      body: { name: 'skills', bytes: ZIP_BYTES.toString('hex') },
    });
  });
});

describe('local gateway: binary answers', () => {
  it('writes a base64 answer back as the bytes, with the content type the route gave', async () => {
    const response = await fetch(new URL('/download', baseUrl), {
      headers: { 'X-API-KEY': 'key', Accept: 'application/zip' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(Buffer.from(await response.arrayBuffer()).equals(ZIP_BYTES)).toBe(true);
  });
});

describe('isBinaryMediaType', () => {
  it.each([
    ['multipart/form-data; boundary="a=b"', true],
    ['Multipart/Form-Data', true],
    ['application/zip', true],
    ['application/json', false],
    ['application/zipx', false],
    [undefined, false],
  ])('%s -> %s', (type, binary) => {
    expect(isBinaryMediaType(type)).toBe(binary);
  });

  it('reads `*` in an entry as any type or subtype', () => {
    expect(isBinaryMediaType('image/png', ['image/*'])).toBe(true);
    expect(isBinaryMediaType('text/plain', ['*/*'])).toBe(true);
    expect(isBinaryMediaType('text/plain', ['image/*'])).toBe(false);
  });
});
