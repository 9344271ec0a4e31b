import { writeFileSync } from 'node:fs';
import { API_STAGE_NAME } from '../routes.ts';
import { publishedOpenApiText } from './document.ts';

/**
 * `tsx infra/openapi/publish.ts <file>`: writes the document as the deployed API serves it (minified,
 * its server the stage's path). The `GET /openapi.json` function's bundling runs it (infra/bundling.ts).
 */
const [file] = process.argv.slice(2);
if (!file) throw new Error('Usage: tsx infra/openapi/publish.ts <output file>');
writeFileSync(file, publishedOpenApiText(`/${API_STAGE_NAME}`));
