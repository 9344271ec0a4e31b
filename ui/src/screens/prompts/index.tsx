import { api } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { JsonView } from '../../components/json-view.tsx';
import { ErrorMessage, Loading } from '../../components/status.tsx';

/** Prompts: templates, versions, diffs and label moves (a stub until the Prompts screen lands). */
export default function PromptsScreen() {
  const list = useApi(
    (signal) => api<unknown>('GET', '/prompt-templates', { query: { per_page: 10 }, signal }),
    [],
  );
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Prompts</h1>
      {list.loading ? (
        <Loading />
      ) : list.error ? (
        <ErrorMessage>{list.error}</ErrorMessage>
      ) : (
        <JsonView value={list.data} />
      )}
    </section>
  );
}
