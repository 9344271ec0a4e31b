import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_ROUTES } from '../routes.ts';
import { buildOpenApiDocument, loadDocumentedRoutes, type OpenApiOptions } from './generate.ts';

/** Where `npm run openapi` writes the document; the `GET /openapi.json` function serves this file. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const OPENAPI_FILE = join(REPO_ROOT, 'docs', 'openapi.json');

/** The document of the route table, as the text `npm run openapi` writes. */
export async function openApiText(options: OpenApiOptions = {}) {
  const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string })
    .version;
  const routes = await loadDocumentedRoutes(API_ROUTES, REPO_ROOT);
  return `${JSON.stringify(buildOpenApiDocument(routes, { version, ...options }), null, 2)}\n`;
}

/**
 * The committed document as the deployed API serves it (infra/openapi/publish.ts writes it into the
 * function's asset): minified, with the stage's base path as its server (a relative URL: clients resolve
 * it against wherever they fetched the document).
 */
export function publishedOpenApiText(basePath: string): string {
  const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as Record<string, unknown>;
  return JSON.stringify({ ...document, servers: [{ url: basePath, description: 'This stage of the API' }] });
}
