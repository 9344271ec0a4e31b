import { DASHBOARD_HOME, DASHBOARD_REDIRECT_PATHS, SECURITY_HEADERS } from '#shared/dashboard/site.ts';
import type { PublicAnswer } from './gateway.ts';

/**
 * `GET /`, `/ui` and `/ui/` redirect to the dashboard, as the stack's gateway answers them (Mock
 * integrations in infra/constructs/http-api.ts).
 */
export function dashboardRedirects(): Record<string, () => Promise<PublicAnswer>> {
  const answer = async (): Promise<PublicAnswer> => ({
    status: 302,
    contentType: 'text/plain; charset=utf-8',
    body: '',
    headers: { Location: DASHBOARD_HOME, 'Cache-Control': 'no-cache', ...SECURITY_HEADERS },
  });
  return Object.fromEntries([...DASHBOARD_REDIRECT_PATHS, '/ui/'].map((path) => [path, answer]));
}
