import type { RouteDef } from '../route-types.ts';

/** The prompt template registry: versions, labels, snippets, external ids. */
export const PROMPT_ROUTES: readonly RouteDef[] = [];
