import { useEffect, useState } from 'preact/hooks';
import { api, errorMessage } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { EditOnly } from '../../components/edit-only.tsx';
import { GroupPicker, pickedGroupId } from '../../components/group-picker.tsx';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { describeFilter, readLogQuery, toApiQuery } from '../../lib/log-query.ts';
import { useFormatTime } from '../../lib/time.ts';
import { setQuery, useQuery } from '../../lib/url-state.ts';
import { RowsGrid } from './grid.tsx';
import { UploadFile } from './upload.tsx';

export interface Dataset {
  id: number;
  dataset_group_id: number;
  /** -1 for a draft. */
  version_number: number;
  row_count: number;
  created_at: string;
  updated_at: string;
  dataset_group: { id: number; name: string };
  /** Removed by its failed job (GET by id answers such a draft for a week). */
  is_deleted: boolean;
  /** The last job that built it; null when none did. */
  job_status: 'RUNNING' | 'SUCCESS' | 'FAILED' | null;
  job_error: string | null;
}
interface Group {
  id: number;
  name: string;
  /** Newest first, the draft (if any) on top. */
  versions: Dataset[];
}

/** GET /datasets answers at most 100 a page; a workspace with more groups shows the first pages. */
const LIST_PAGES = 10;
const POLL_MS = 1000;

/**
 * Datasets: groups and their versions (the draft marked), a version's rows in a windowed grid, draft ->
 * save, and new versions from the Requests screen's filter or a file, with the job's progress. The URL
 * holds the group (`group`), the version (`version`), the dataset a job is building (`job`) and, coming
 * from Requests, its log query (`range`/`from`/`to`/`q`/`f`, with `from_filter=1`).
 */
export default function DatasetsScreen() {
  const params = useQuery();
  const groupId = Number(params.get('group')) || 0;
  const versionId = Number(params.get('version')) || 0;
  const jobId = Number(params.get('job')) || 0;
  const fromFilter = params.get('from_filter') === '1';
  const [reloaded, setReloaded] = useState(0);
  const list = useApi(
    async (signal) => {
      const datasets: Dataset[] = [];
      for (let page = 1; page <= LIST_PAGES; page++) {
        const answer = await api<{ datasets: Dataset[]; pages: number }>('GET', '/api/public/v2/datasets', {
          query: { page, per_page: 100 },
          signal,
        });
        datasets.push(...answer.datasets);
        if (page >= answer.pages) break;
      }
      return groupsOf(datasets);
    },
    [reloaded],
  );
  const reload = () => setReloaded((n) => n + 1);
  const groups = list.data ?? [];
  const group = groups.find((candidate) => candidate.id === groupId);

  return (
    <section aria-labelledby="screen-title" class="datasets">
      <h1 id="screen-title">Datasets</h1>
      {fromFilter ? <FromFilter params={params} groups={groups} onStarted={reload} /> : null}
      {jobId ? <JobProgress key={jobId} datasetId={jobId} onDone={reload} /> : null}
      <div class="datasets-layout">
        <nav class="datasets-groups" aria-label="Dataset groups">
          <h2>Groups</h2>
          {list.error ? <ErrorMessage>{list.error}</ErrorMessage> : null}
          {list.loading && !list.data ? <Loading what="Loading the groups" /> : null}
          <ul>
            {groups.map((candidate) => (
              <li key={candidate.id}>
                <button
                  type="button"
                  aria-pressed={candidate.id === groupId}
                  onClick={() => setQuery({ group: String(candidate.id), version: null })}
                >
                  {candidate.name}
                </button>
              </li>
            ))}
          </ul>
          {list.data && groups.length === 0 ? <p class="muted">No dataset groups yet.</p> : null}
          <EditOnly entity="datasets">
            <NewGroup onCreated={reload} />
          </EditOnly>
        </nav>
        <div class="datasets-main">
          {group ? (
            <GroupView group={group} versionId={versionId} onChanged={reload} />
          ) : (
            <p class="muted">Choose a group.</p>
          )}
        </div>
      </div>
    </section>
  );
}

function groupsOf(datasets: Dataset[]): Group[] {
  const groups = new Map<number, Group>();
  for (const dataset of datasets) {
    const group = groups.get(dataset.dataset_group_id) ?? {
      id: dataset.dataset_group_id,
      name: dataset.dataset_group.name,
      versions: [],
    };
    group.versions.push(dataset);
    groups.set(group.id, group);
  }
  const byVersion = (a: Dataset, b: Dataset) =>
    (b.version_number === -1 ? Infinity : b.version_number) -
    (a.version_number === -1 ? Infinity : a.version_number);
  for (const group of groups.values()) group.versions.sort(byVersion);
  return [...groups.values()].sort((a, b) => a.name.localeCompare(b.name));
}

const versionName = (dataset: Dataset) =>
  dataset.version_number === -1 ? 'Draft' : `Version ${dataset.version_number}`;

function GroupView({ group, versionId, onChanged }: { group: Group; versionId: number; onChanged(): void }) {
  const format = useFormatTime();
  const draft = group.versions.find((dataset) => dataset.version_number === -1);
  const shown = group.versions.find((dataset) => dataset.id === versionId) ?? group.versions[0];
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <h2>{group.name}</h2>
      <EditOnly entity="datasets">
        <div class="datasets-actions">
          {draft ? (
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                act(async () => {
                  const saved = await api<{ version_number: number; draft_dataset_id: number }>(
                    'POST',
                    '/api/public/v2/dataset-versions/save-draft',
                    { body: { dataset_group_id: group.id } },
                  );
                  setQuery({ version: String(saved.draft_dataset_id) });
                  onChanged();
                })
              }
            >
              Save the draft as a version
            </button>
          ) : (
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                act(async () => {
                  const created = await api<{ draft_dataset_id: number }>(
                    'POST',
                    '/api/public/v2/dataset-versions/create-draft',
                    { body: { dataset_group_id: group.id, source_dataset_id: shown?.id ?? null } },
                  );
                  setQuery({
                    version: String(created.draft_dataset_id),
                    job: String(created.draft_dataset_id),
                  });
                  onChanged();
                })
              }
            >
              {shown ? `New draft from ${versionName(shown).toLowerCase()}` : 'New draft'}
            </button>
          )}
          <UploadFile groupId={group.id} />
        </div>
        {error ? <ErrorMessage>{error}</ErrorMessage> : null}
      </EditOnly>
      <ul class="datasets-versions" aria-label="Versions">
        {group.versions.map((dataset) => (
          <li key={dataset.id}>
            <button
              type="button"
              aria-pressed={dataset.id === shown?.id}
              class={dataset.version_number === -1 ? 'datasets-draft' : undefined}
              onClick={() => setQuery({ version: String(dataset.id) })}
            >
              {versionName(dataset)}
              <span class="muted">
                {' '}
                · {dataset.row_count.toLocaleString('en-US')} rows · {format(dataset.updated_at)}
                {dataset.job_status === 'RUNNING' ? ' · a job is building it' : ''}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {shown?.job_status === 'RUNNING' ? (
        // Its rows arrive when the job ends (and a failed job may remove the draft).
        <p class="muted">A job is building {versionName(shown).toLowerCase()}: its rows show when it ends.</p>
      ) : shown ? (
        <RowsGrid key={`${shown.id}:${shown.row_count}`} datasetId={shown.id} />
      ) : null}
    </>
  );
}

function NewGroup({ onCreated }: { onCreated(): void }) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  return (
    <form
      class="datasets-new-group"
      onSubmit={async (event) => {
        event.preventDefault();
        try {
          const created = await api<{ dataset_group: { id: number } }>(
            'POST',
            '/api/public/v2/dataset-groups',
            {
              body: { name: name.trim() },
            },
          );
          setName('');
          setError(undefined);
          setQuery({ group: String(created.dataset_group.id), version: null });
          onCreated();
        } catch (failure) {
          setError(errorMessage(failure));
        }
      }}
    >
      <label for="datasets-group-name">New group</label>
      <input id="datasets-group-name" value={name} onInput={(event) => setName(event.currentTarget.value)} />
      <button type="submit" disabled={!name.trim()}>
        Create
      </button>
      {error ? <ErrorMessage>{error}</ErrorMessage> : null}
    </form>
  );
}

/** The form that turns the Requests screen's filter (in this URL) into a new version of a group. */
function FromFilter({
  params,
  groups,
  onStarted,
}: {
  params: URLSearchParams;
  groups: Group[];
  onStarted(): void;
}) {
  const query = readLogQuery(params);
  const [groupChoice, setGroupChoice] = useState('');
  const [newName, setNewName] = useState('');
  const [error, setError] = useState<string>();
  const conditions = [query.q ? `search "${query.q}"` : '', ...query.filters.map(describeFilter)].filter(
    Boolean,
  );
  const range = query.from && query.to ? `${query.from} to ${query.to}` : `the last ${query.range}`;
  return (
    <form
      class="datasets-from-filter"
      aria-labelledby="datasets-from-filter-title"
      onSubmit={async (event) => {
        event.preventDefault();
        setError(undefined);
        try {
          const groupId = await pickedGroupId(groupChoice, newName);
          const started = await api<{ dataset_id: number }>(
            'POST',
            '/api/public/v2/dataset-versions/from-filter-params',
            { body: { dataset_group_id: groupId, ...toApiQuery(query) } },
          );
          setQuery({
            from_filter: null,
            range: null,
            from: null,
            to: null,
            q: null,
            f: null,
            group: String(groupId),
            version: String(started.dataset_id),
            job: String(started.dataset_id),
          });
          onStarted();
        } catch (failure) {
          setError(errorMessage(failure));
        }
      }}
    >
      <h2 id="datasets-from-filter-title">New version from the Requests filter</h2>
      <p>
        Logs of {range}
        {conditions.length > 0 ? `, where ${conditions.join(' and ')}` : ''}.
      </p>
      <GroupPicker
        idPrefix="datasets-filter"
        label="Group"
        groups={groups}
        choice={groupChoice}
        onChoice={setGroupChoice}
        newName={newName}
        onNewName={setNewName}
      />
      <button type="submit" disabled={!groupChoice && !newName.trim()}>
        Create the version
      </button>
      <button type="button" onClick={() => setQuery({ from_filter: null })}>
        Cancel
      </button>
      {error ? <ErrorMessage>{error}</ErrorMessage> : null}
    </form>
  );
}

/** The state of the dataset a job is building (its `job_status`), polled until the job has ended. */
function JobProgress({ datasetId, onDone }: { datasetId: number; onDone(): void }) {
  const [state, setState] = useState<{ dataset?: Dataset; failed?: string }>({});
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const controller = new AbortController();
    const poll = async () => {
      try {
        const { dataset } = await api<{ dataset: Dataset }>('GET', `/api/public/v2/datasets/${datasetId}`, {
          signal: controller.signal,
        });
        setState({ dataset });
        if (dataset.job_status !== 'RUNNING') {
          // A draft its failed job removed is no longer one to show.
          if (dataset.is_deleted) setQuery({ version: null }, 'replace');
          onDone();
          return;
        }
      } catch (failure) {
        if (controller.signal.aborted) return;
        setState({ failed: errorMessage(failure) });
        return;
      }
      timer = setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [datasetId]);
  const { dataset, failed } = state;
  const rows = (dataset: Dataset) => dataset.row_count.toLocaleString('en-US');
  return (
    <div class="datasets-job" role="status">
      {failed ? (
        <p class="error">{failed}</p>
      ) : !dataset ? (
        <p>Starting the job…</p>
      ) : dataset.job_status === 'FAILED' ? (
        <p class="error">
          The job building {dataset.dataset_group.name} failed: {dataset.job_error ?? 'no reason given'}
          {dataset.is_deleted ? ' (its draft was removed)' : ''}
        </p>
      ) : dataset.job_status === 'RUNNING' ? (
        <p>
          Running: building the draft of {dataset.dataset_group.name}, {rows(dataset)} rows so far…
        </p>
      ) : dataset.version_number === -1 ? (
        <p>
          {dataset.dataset_group.name}: the draft is ready ({rows(dataset)} rows).
        </p>
      ) : (
        <p>
          {dataset.dataset_group.name}: version {dataset.version_number} is ready ({rows(dataset)} rows).
        </p>
      )}
      <button type="button" onClick={() => setQuery({ job: null }, 'replace')}>
        Dismiss
      </button>
    </div>
  );
}
