import { api } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { JsonView } from '../../components/json-view.tsx';
import { ErrorMessage, Loading } from '../../components/status.tsx';

/** Analytics: KPIs, time series and breakdowns (a stub until the Analytics screen lands). */
export default function AnalyticsScreen() {
  const stats = useApi((signal) => api<unknown>('GET', '/api/public/v2/requests/analytics', { signal }), []);
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Analytics</h1>
      {stats.loading ? (
        <Loading />
      ) : stats.error ? (
        <ErrorMessage>{stats.error}</ErrorMessage>
      ) : (
        <JsonView value={stats.data} />
      )}
    </section>
  );
}
