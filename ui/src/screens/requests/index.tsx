import { api } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { FilterBar } from '../../components/filter-bar.tsx';
import { JsonView } from '../../components/json-view.tsx';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { addFilter, readLogQuery, toApiQuery, writeLogQuery } from '../../lib/log-query.ts';
import { setQuery, useQuery } from '../../lib/url-state.ts';
import { RequestDetail } from './detail/index.tsx';

/**
 * Requests: the log table and its detail pane (a stub until the Requests screen lands). The URL's `sel`
 * is the open request log.
 */
export default function RequestsScreen() {
  const params = useQuery();
  const query = readLogQuery(params);
  const selected = params.get('sel');
  const body = JSON.stringify({ ...toApiQuery(query), page: 1, per_page: 25 });
  const page = useApi(
    (signal) => api<unknown>('POST', '/api/public/v2/requests/search', { body: JSON.parse(body), signal }),
    [body],
  );
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Requests</h1>
      <FilterBar />
      {page.loading ? (
        <Loading />
      ) : page.error ? (
        <ErrorMessage>{page.error}</ErrorMessage>
      ) : (
        <JsonView value={page.data} />
      )}
      {selected && (
        <RequestDetail
          id={selected}
          onFilter={(filter) => setQuery(writeLogQuery(addFilter(query, filter)))}
          onClose={() => setQuery({ sel: null })}
        />
      )}
    </section>
  );
}
