/**
 * The zod every runtime schema is written with: `zod/mini`, the tree-shakable build (a function bundles
 * only the schema kinds and checks it uses: ~15 KB for a small object schema against classic zod's
 * ~90 KB), with the English messages that classic zod loads by itself and mini does not, so error bodies
 * read the same. Import it as `import * as z from '#shared/platform/zod.ts'`: a lint rule (biome.json)
 * refuses `zod` and `zod/mini` elsewhere in shared/ and functions/. The OpenAPI generator (infra/, never
 * bundled into a function) may use classic zod.
 */
import { en } from 'zod/locales';
import { config } from 'zod/mini';

config(en());

export * from 'zod/mini';
