import { api } from '../../../api/client.ts';
import { useApi } from '../../../api/use-api.ts';
import { JsonView } from '../../../components/json-view.tsx';
import { ErrorMessage, Loading } from '../../../components/status.tsx';
import type { Filter } from '../../../lib/log-query.ts';

export interface RequestDetailProps {
  /** The request log's id (the URL's `sel`). */
  id: string;
  /** Click-to-filter from a detail field: adds the condition to the URL's query. */
  onFilter(filter: Filter): void;
  onClose(): void;
}

/** The detail pane of one request log (a stub until the detail pane lands). */
export function RequestDetail({ id, onClose }: RequestDetailProps) {
  const log = useApi(
    (signal) => api<unknown>('GET', `/api/public/v2/requests/${encodeURIComponent(id)}`, { signal }),
    [id],
  );
  return (
    <aside aria-labelledby="detail-title">
      <h2 id="detail-title">Request {id}</h2>
      <button type="button" onClick={onClose}>
        Close
      </button>
      {log.loading ? (
        <Loading />
      ) : log.error ? (
        <ErrorMessage>{log.error}</ErrorMessage>
      ) : (
        <JsonView value={log.data} />
      )}
    </aside>
  );
}
