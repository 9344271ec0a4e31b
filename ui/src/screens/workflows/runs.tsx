import { api } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { useFormatTime } from '../../lib/time.ts';
import { setQuery, useQueryParam } from '../../lib/url-state.ts';

/** `GET /workflows/{name}/runs`: a page of runs, newest first. */
interface RunPage {
  runs: {
    workflow_version_execution_id: number;
    version_number: number;
    status: 'RUNNING' | 'SUCCESS' | 'FAILED';
    created_at: string;
    finished_at: string | null;
  }[];
  next_cursor: string | null;
}

const RUNS_PER_PAGE = 10;

/**
 * The workflow's past runs (`runs_after` in the URL: the cursor of the page shown); "Open" shows a run
 * on its version's graph. `reload` changes when the run shown starts or finishes.
 */
export function PastRuns({ name, reload }: { name: string; reload: string }) {
  const [cursor] = useQueryParam('runs_after');
  const [runId] = useQueryParam('run');
  const format = useFormatTime();
  const page = useApi(
    (signal) =>
      api<RunPage>('GET', `/workflows/${encodeURIComponent(name)}/runs`, {
        signal,
        query: { per_page: RUNS_PER_PAGE, cursor: cursor || undefined },
      }),
    [name, cursor, reload],
  );
  return (
    <section aria-labelledby="runs-title" class="workflow-runs">
      <h2 id="runs-title">Past runs</h2>
      {page.error ? <ErrorMessage>{page.error}</ErrorMessage> : null}
      {!page.data ? (
        page.error ? null : (
          <Loading what="Loading the runs" />
        )
      ) : page.data.runs.length === 0 ? (
        <p class="muted">No runs yet.</p>
      ) : (
        <table class="workflow-runs-table">
          <caption class="visually-hidden">Runs, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Version</th>
              <th scope="col">Status</th>
              <th scope="col">Started</th>
              <th scope="col">Finished</th>
              <th scope="col">Graph</th>
            </tr>
          </thead>
          <tbody>
            {page.data.runs.map((run) => {
              const id = String(run.workflow_version_execution_id);
              return (
                <tr key={id} class={id === runId ? 'selected' : ''} aria-selected={id === runId}>
                  <td>{id}</td>
                  <td>v{run.version_number}</td>
                  <td class={`run-${run.status.toLowerCase()}`}>{run.status}</td>
                  <td>{format(run.created_at)}</td>
                  <td>{run.finished_at ? format(run.finished_at) : '—'}</td>
                  <td>
                    <button
                      type="button"
                      aria-pressed={id === runId}
                      onClick={() => setQuery({ version: String(run.version_number), run: id, node: null })}
                    >
                      Open <span class="visually-hidden">run {id}</span>
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <nav class="workflow-runs-pager" aria-label="Run pages">
        {cursor ? (
          <button type="button" onClick={() => setQuery({ runs_after: null })}>
            Newest runs
          </button>
        ) : null}
        {page.data?.next_cursor ? (
          <button type="button" onClick={() => setQuery({ runs_after: page.data?.next_cursor ?? null })}>
            Older runs
          </button>
        ) : null}
      </nav>
    </section>
  );
}
