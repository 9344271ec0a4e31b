import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { DashboardSite, securityHeaders } from '#shared/dashboard/site.ts';
import { ENV } from '#shared/platform/config.ts';

/**
 * GET /ui/{proxy+}: the web dashboard's files (shared/dashboard/site.ts), without a key: the page and
 * its scripts hold no data; the dashboard calls the API with the key its user signs in with.
 *
 * Its CSP lets the page PUT files to the bucket's presigned URLs (ENV.uploadOrigin, the Datasets upload).
 *
 * The built files are `ui/` beside the bundle in AWS (copied there by infra/bundling.ts) and the
 * repository's `ui/dist` locally (built by the local service at start when missing or stale).
 */
const besideBundle = fileURLToPath(new URL('./ui', import.meta.url));
const site = new DashboardSite(
  existsSync(besideBundle) ? besideBundle : fileURLToPath(new URL('../../ui/dist', import.meta.url)),
);

export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const answer = site.answer({ path: event.pathParameters?.proxy ?? '', headers: event.headers ?? {} });
  const isText = answer.headers['Content-Encoding'] === undefined;
  return {
    statusCode: answer.status,
    // Read per request: a local service restarted in the same process (tests) has a new emulator.
    headers: { ...answer.headers, ...securityHeaders(process.env[ENV.uploadOrigin]) },
    body: isText ? answer.body.toString('utf8') : answer.body.toString('base64'),
    isBase64Encoded: !isText,
  };
}
