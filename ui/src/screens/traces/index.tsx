import { api } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { JsonView } from '../../components/json-view.tsx';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { useQueryParam } from '../../lib/url-state.ts';

/** Traces: a trace's span tree as a waterfall (a stub until the Traces screen lands). */
export default function TracesScreen() {
  const [traceId] = useQueryParam('trace');
  const trace = useApi(
    (signal) =>
      traceId
        ? api<unknown>('GET', `/api/public/v2/traces/${encodeURIComponent(traceId)}`, { signal })
        : Promise.resolve(undefined),
    [traceId],
  );
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Traces</h1>
      {!traceId ? (
        <p class="muted">Open a trace from a request (its id goes in the URL as ?trace=).</p>
      ) : trace.loading ? (
        <Loading />
      ) : trace.error ? (
        <ErrorMessage>{trace.error}</ErrorMessage>
      ) : (
        <JsonView value={trace.data} />
      )}
    </section>
  );
}
