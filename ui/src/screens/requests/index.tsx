import { api } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { JsonView } from '../../components/json-view.tsx';
import { ErrorMessage, Loading } from '../../components/status.tsx';

/** Requests: the log table and its detail pane (a stub until the Requests screen lands). */
export default function RequestsScreen() {
  const page = useApi(
    (signal) =>
      api<unknown>('POST', '/api/public/v2/requests/search', { body: { page: 1, per_page: 5 }, signal }),
    [],
  );
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Requests</h1>
      {page.loading ? (
        <Loading />
      ) : page.error ? (
        <ErrorMessage>{page.error}</ErrorMessage>
      ) : (
        <JsonView value={page.data} />
      )}
    </section>
  );
}
