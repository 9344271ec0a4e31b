import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * The `/docs` page of the local service: Swagger UI (npm `swagger-ui-dist`, a dev dependency) rendering
 * `/openapi.json`. Its files are served from node_modules, so the page needs no network.
 */
export interface StaticAnswer {
  contentType: string;
  body: string | Buffer;
}

const require = createRequire(import.meta.url);
/** The package's own locator; its main module would load the whole bundle into this process. */
const swaggerUiDir = (): string => (require('swagger-ui-dist/absolute-path.js') as () => string)();

/** The only files served from the package, with their types (no path from the request reaches the disk). */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const page = (title: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${title}</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const init = (specUrl: string) => `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(specUrl)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

/** GET routes of the page: `/docs` and its files. */
export function docsPageRoutes(specUrl = '/openapi.json'): Record<string, () => Promise<StaticAnswer>> {
  const html = async () => ({ contentType: 'text/html; charset=utf-8', body: page('promptops API') });
  const routes: Record<string, () => Promise<StaticAnswer>> = {
    '/docs': html,
    '/docs/': html,
    '/docs/init.js': async () => ({ contentType: 'text/javascript; charset=utf-8', body: init(specUrl) }),
  };
  for (const [file, contentType] of Object.entries(ASSETS)) {
    let cached: Promise<Buffer> | undefined;
    routes[`/docs/${file}`] = async () => {
      cached ??= readFile(join(swaggerUiDir(), file));
      return { contentType, body: await cached };
    };
  }
  return routes;
}
