import type { RouteDef } from '../route-types.ts';

/** Provider keys of a workspace (filled by the providers part). */
export const PROVIDER_ROUTES: readonly RouteDef[] = [];
