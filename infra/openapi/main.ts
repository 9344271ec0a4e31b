import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { OPENAPI_FILE, openApiText } from './document.ts';

/** `npm run openapi`: writes the OpenAPI document of the route table to docs/openapi.json. */
const text = await openApiText();
writeFileSync(OPENAPI_FILE, text);
process.stdout.write(`Wrote ${relative(process.cwd(), OPENAPI_FILE)} (${Buffer.byteLength(text)} bytes)\n`);
