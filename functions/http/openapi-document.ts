import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { acceptsGzip, gatewayPassesBytes, header, NO_CACHE } from '#shared/dashboard/site.ts';

/**
 * GET /openapi.json: the API's OpenAPI document, without a key (any Swagger UI or editor may load it).
 *
 * The document is a file, never generated here: `openapi.json` beside the bundle in AWS (the committed
 * docs/openapi.json, minified, its server the stage's path, written by infra/openapi/publish.ts at
 * bundling) and the repository's docs/openapi.json locally (kept current by `npm run openapi`; a unit
 * test fails while it is stale). Read once per instance.
 *
 * `no-cache` with an ETag: a client revalidates and gets a 304 until a deploy changes the document.
 * gzip when the client accepts it and API Gateway passes bytes through (shared/dashboard/site.ts).
 */
const besideBundle = fileURLToPath(new URL('./openapi.json', import.meta.url));
const body = readFileSync(
  existsSync(besideBundle)
    ? besideBundle
    : fileURLToPath(new URL('../../docs/openapi.json', import.meta.url)),
);
const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
let gzipped: Buffer | undefined;

const HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'application/json',
  'Cache-Control': NO_CACHE,
  ETag: etag,
  Vary: 'Accept-Encoding',
  'Access-Control-Allow-Origin': '*',
  'X-Content-Type-Options': 'nosniff',
};

export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const headers = event.headers ?? {};
  if (matchesEtag(header(headers, 'if-none-match')))
    return { statusCode: 304, headers: { ...HEADERS }, body: '' };
  if (acceptsGzip(header(headers, 'accept-encoding')) && gatewayPassesBytes(header(headers, 'accept'))) {
    gzipped ??= gzipSync(body, { level: 9 });
    return {
      statusCode: 200,
      headers: { ...HEADERS, 'Content-Encoding': 'gzip' },
      body: gzipped.toString('base64'),
      isBase64Encoded: true,
    };
  }
  return { statusCode: 200, headers: { ...HEADERS }, body: body.toString('utf8') };
}

/** `If-None-Match` lists our ETag (weak or not: a proxy that compressed it marks it weak) or is `*`. */
function matchesEtag(ifNoneMatch: string | undefined): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const value = tag.trim();
    return value === '*' || value === etag || value === `W/${etag}`;
  });
}
