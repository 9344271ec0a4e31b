import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '#infra/local/service.ts';
import { API_ROUTES } from '#infra/routes.ts';
import type { HttpHandler } from '#shared/platform/http.ts';

/**
 * A route's table row (what the stack and the local gateway build: an authorizer or none) and its
 * handler's declaration (where the wrapper looks for the key) must say the same thing: a body-key
 * handler behind the authorizer would refuse the SDK's header-less calls, and a header-key handler
 * without one would run unauthenticated.
 */
describe('route table rows and handler definitions', () => {
  it.each(API_ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: the row and the handler agree on where the API key is',
    async (_name, route) => {
      const module = (await import(pathToFileURL(join(REPO_ROOT, route.handler)).href)) as {
        handler: HttpHandler;
      };
      expect(module.handler.definition, route.handler).toBeDefined();
      expect(module.handler.definition.auth ?? 'header').toBe(route.auth ?? 'header');
    },
  );
});
