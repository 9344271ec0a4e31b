import type { ComponentType } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, errorMessage } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { EditOnly } from '../../components/edit-only.tsx';
import { JsonView } from '../../components/json-view.tsx';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { useFormatTime } from '../../lib/time.ts';
import { dashboardUrl, navigate, setQuery, useLocation, useQueryParam } from '../../lib/url-state.ts';
import type { WorkflowGraphProps } from './graph.tsx';
import { PastRuns } from './runs.tsx';
import type { GraphEdge, GraphNode, NodeStatus } from './types.ts';

interface WorkflowListItem {
  id: number;
  name: string;
  latest_version_number: number | null;
  release_labels: string[];
  updated_at: string;
}

interface WorkflowNode {
  name: string;
  node_type: string;
  configuration: Record<string, unknown>;
  dependencies: string[];
  is_output_node: boolean;
}

interface WorkflowVersion {
  workflow_name: string;
  workflow: { latest_version_number: number | null };
  version_number: number;
  commit_message: string | null;
  required_input_variables: Record<string, string>;
  release_labels: string[];
  created_at: string;
  nodes: WorkflowNode[];
  edges: { source_node_name: string; target_node_name: string; conditionals: unknown[]; is_and: boolean }[];
}

interface NodeResult {
  status: NodeStatus;
  value: unknown;
  error_message: string | null;
  raw_error_message: string | null;
  value_omitted_bytes?: number;
}
type RunResults = Record<string, NodeResult>;

const POLL_MS = 1000;
/** Every node done (the endpoint's 200); a run whose nodes are not written yet is not. */
const isFinal = (results: RunResults) =>
  Object.keys(results).length > 0 &&
  Object.values(results).every((node) => node.status !== 'QUEUED' && node.status !== 'RUNNING');

function link(path: string) {
  return {
    href: dashboardUrl(path),
    onClick: (event: MouseEvent) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      navigate(path);
    },
  };
}

/**
 * Workflows: the list, then a workflow's version (`/ui/workflows/<name>?version=<n>`) as a graph, its
 * labels, a run started from a form of its input variables and watched live (`&run=<id>`), and the
 * selected node's configuration and result (`&node=<name>`).
 */
export default function WorkflowsScreen() {
  const { path } = useLocation();
  const name = path.split('/')[1];
  return name ? <WorkflowPage name={decodeURIComponent(name)} /> : <WorkflowList />;
}

function WorkflowList() {
  const format = useFormatTime();
  const list = useApi(
    (signal) =>
      api<{ items: WorkflowListItem[]; total: number }>('GET', '/workflows', {
        signal,
        query: { per_page: 100, sort_by: 'updated_at', sort_order: 'desc' },
      }),
    [],
  );
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Workflows</h1>
      {list.loading ? <Loading what="Loading the workflows" /> : null}
      {list.error ? <ErrorMessage>{list.error}</ErrorMessage> : null}
      {list.data ? (
        list.data.items.length === 0 ? (
          <p class="muted">No workflows yet: publish one with POST /rest/workflows.</p>
        ) : (
          <table class="workflow-list">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Latest version</th>
                <th scope="col">Labels</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((workflow) => (
                <tr key={workflow.id}>
                  <td>
                    <a {...link(`workflows/${encodeURIComponent(workflow.name)}`)}>{workflow.name}</a>
                  </td>
                  <td>{workflow.latest_version_number ?? '—'}</td>
                  <td>{workflow.release_labels.join(', ')}</td>
                  <td>{format(workflow.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
    </section>
  );
}

function WorkflowPage({ name }: { name: string }) {
  const [versionParam] = useQueryParam('version');
  const [runId] = useQueryParam('run');
  const format = useFormatTime();
  const version = useApi(
    (signal) =>
      api<WorkflowVersion>('GET', `/workflows/${encodeURIComponent(name)}`, {
        signal,
        query: { version: versionParam || undefined },
      }),
    [name, versionParam],
  );
  const labels = useApi(
    (signal) =>
      api<{ release_labels: { release_label: string; workflow_version_number: number }[] }>(
        'GET',
        `/workflows/${encodeURIComponent(name)}/labels`,
        { signal },
      ),
    [name],
  );
  const results = useRunResults(runId);
  const data = version.data;
  const latest = data?.workflow.latest_version_number ?? 0;
  return (
    <section aria-labelledby="screen-title">
      <p>
        <a {...link('workflows')}>All workflows</a>
      </p>
      <h1 id="screen-title">{name}</h1>
      {version.loading && !data ? <Loading what="Loading the version" /> : null}
      {version.error ? <ErrorMessage>{version.error}</ErrorMessage> : null}
      {data ? (
        <>
          <div class="workflow-head">
            <label for="workflow-version">Version</label>
            <select
              id="workflow-version"
              value={String(data.version_number)}
              onChange={(event) => setQuery({ version: event.currentTarget.value, node: null, run: null })}
            >
              {Array.from({ length: latest }, (_, index) => latest - index).map((number) => (
                <option key={number} value={String(number)}>
                  {number}
                  {number === latest ? ' (latest)' : ''}
                </option>
              ))}
            </select>
            <span class="muted">
              {format(data.created_at)}
              {data.commit_message ? ` — ${data.commit_message}` : ''}
            </span>
          </div>
          <section aria-labelledby="labels-title">
            <h2 id="labels-title">Labels</h2>
            {labels.error ? <ErrorMessage>{labels.error}</ErrorMessage> : null}
            {labels.data && labels.data.release_labels.length === 0 ? <p class="muted">No labels.</p> : null}
            <ul class="workflow-labels">
              {labels.data?.release_labels.map((label) => (
                <li key={label.release_label}>
                  <a
                    {...link(
                      `workflows/${encodeURIComponent(name)}?version=${label.workflow_version_number}`,
                    )}
                  >
                    {label.release_label} → v{label.workflow_version_number}
                  </a>
                </li>
              ))}
            </ul>
          </section>
          <EditOnly entity="workflows">
            <RunForm name={name} version={data} />
          </EditOnly>
          {runId ? <RunStatus runId={runId} results={results} /> : null}
          <GraphView version={data} results={results.data} />
          <PastRuns name={name} reload={`${runId}:${results.data && isFinal(results.data) ? 'done' : ''}`} />
        </>
      ) : null}
    </section>
  );
}

/** Polls a run's results (every node) while any node is QUEUED or RUNNING (the endpoint's 202). */
function useRunResults(runId: string) {
  const [state, setState] = useState<{ data?: RunResults; error?: string }>({});
  useEffect(() => {
    setState({});
    if (!runId) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const controller = new AbortController();
    const poll = () =>
      api<RunResults>('GET', '/workflow-version-execution-results', {
        signal: controller.signal,
        query: { workflow_version_execution_id: runId, return_all_outputs: true },
      }).then(
        (data) => {
          if (controller.signal.aborted) return;
          setState({ data });
          if (!isFinal(data)) timer = setTimeout(poll, POLL_MS);
        },
        (error) => controller.signal.aborted || setState({ error: errorMessage(error) }),
      );
    void poll();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [runId]);
  return state;
}

function RunStatus({ runId, results }: { runId: string; results: { data?: RunResults; error?: string } }) {
  if (results.error) return <ErrorMessage>{results.error}</ErrorMessage>;
  if (!results.data) return <Loading what={`Loading run ${runId}`} />;
  const counts = new Map<NodeStatus, number>();
  for (const node of Object.values(results.data)) counts.set(node.status, (counts.get(node.status) ?? 0) + 1);
  const done = isFinal(results.data);
  return (
    <p class="run-status" role="status">
      Run {runId}: {done ? 'finished' : 'running'} —{' '}
      {[...counts].map(([status, count]) => `${count} ${status}`).join(', ')}
    </p>
  );
}

function RunForm({ name, version }: { name: string; version: WorkflowVersion }) {
  const variables = Object.entries(version.required_input_variables);
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="run-form"
      aria-labelledby="run-title"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        setError(null);
        try {
          const started = await api<{ workflow_version_execution_id: number }>(
            'POST',
            `/workflows/${encodeURIComponent(name)}/run`,
            {
              body: {
                workflow_version_number: version.version_number,
                input_variables: Object.fromEntries(
                  variables.map(([variable, type]) => [variable, inputValue(values[variable] ?? '', type)]),
                ),
                return_all_outputs: true,
              },
            },
          );
          setQuery({
            version: String(version.version_number),
            run: String(started.workflow_version_execution_id),
          });
        } catch (failure) {
          setError(errorMessage(failure));
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2 id="run-title">Run version {version.version_number}</h2>
      {variables.map(([variable, type]) => (
        <div class="field" key={variable}>
          <label for={`input-${variable}`}>
            {variable} <span class="muted">({type})</span>
          </label>
          <input
            id={`input-${variable}`}
            value={values[variable] ?? ''}
            onInput={(event) => setValues({ ...values, [variable]: event.currentTarget.value })}
          />
        </div>
      ))}
      <button type="submit" disabled={busy}>
        Run
      </button>
      {error ? <ErrorMessage>{error}</ErrorMessage> : null}
    </form>
  );
}

/** A variable typed other than "string" is read as JSON when it parses (numbers, objects), else as text. */
function inputValue(text: string, type: string): unknown {
  if (type === 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The graph module (dagre) is its own chunk, loaded when the first graph shows. */
let graphModule: Promise<ComponentType<WorkflowGraphProps>> | undefined;
const loadGraph = () => {
  graphModule ??= import('./graph.tsx').then((module) => module.WorkflowGraph);
  graphModule.catch(() => {
    graphModule = undefined;
  });
  return graphModule;
};

function GraphView({ version, results }: { version: WorkflowVersion; results: RunResults | undefined }) {
  const [selected, setSelected] = useQueryParam('node');
  const [Graph, setGraph] = useState<ComponentType<WorkflowGraphProps> | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    loadGraph().then(
      (component) => setGraph(() => component),
      (error: unknown) => setFailed(errorMessage(error)),
    );
  }, []);
  const nodes = useMemo<GraphNode[]>(
    () => version.nodes.map((node) => ({ name: node.name, type: node.node_type })),
    [version],
  );
  const edges = useMemo(() => graphEdges(version), [version]);
  const statuses: Record<string, NodeStatus> = {};
  const skipReasons: Record<string, string> = {};
  for (const [node, result] of Object.entries(results ?? {})) {
    statuses[node] = result.status;
    if (result.status === 'SKIPPED' && result.error_message) skipReasons[node] = result.error_message;
  }
  const node = version.nodes.find((candidate) => candidate.name === selected);
  return (
    <div class="workflow-layout">
      <section class="workflow-graph-frame" aria-labelledby="graph-title">
        <h2 id="graph-title">Graph</h2>
        {failed ? <ErrorMessage>{failed}</ErrorMessage> : null}
        {Graph ? (
          <Graph
            nodes={nodes}
            edges={edges}
            statuses={statuses}
            skipReasons={skipReasons}
            selected={selected}
            onSelect={(name) => setSelected(name, 'replace')}
          />
        ) : failed ? null : (
          <Loading what="Loading the graph" />
        )}
      </section>
      {node ? (
        <NodePane node={node} result={results?.[node.name]} onClose={() => setSelected(null, 'replace')} />
      ) : null}
    </div>
  );
}

/** Dependencies and conditional edges as one arrow per source and target. */
function graphEdges(version: WorkflowVersion): GraphEdge[] {
  const edges = new Map<string, GraphEdge>();
  for (const node of version.nodes)
    for (const source of node.dependencies)
      edges.set(`${source}\n${node.name}`, { source, target: node.name, conditional: false });
  for (const edge of version.edges)
    edges.set(`${edge.source_node_name}\n${edge.target_node_name}`, {
      source: edge.source_node_name,
      target: edge.target_node_name,
      conditional: edge.conditionals.length > 0,
    });
  return [...edges.values()];
}

function NodePane(props: { node: WorkflowNode; result: NodeResult | undefined; onClose(): void }) {
  const { node, result } = props;
  return (
    <aside class="node-pane" aria-labelledby="node-title">
      <header>
        <h2 id="node-title">{node.name}</h2>
        <button type="button" aria-label="Close the node's details" onClick={props.onClose}>
          ×
        </button>
      </header>
      <dl>
        <dt>Type</dt>
        <dd>{node.node_type}</dd>
        <dt>Depends on</dt>
        <dd>{node.dependencies.length > 0 ? node.dependencies.join(', ') : 'nothing'}</dd>
        <dt>Output node</dt>
        <dd>{node.is_output_node ? 'yes' : 'no'}</dd>
        {result ? (
          <>
            <dt>Status</dt>
            <dd class={`node-status status-${result.status.toLowerCase()}`}>{result.status}</dd>
            {result.error_message ? (
              <>
                <dt>{result.status === 'SKIPPED' ? 'Reason' : 'Error'}</dt>
                <dd class="node-error">{result.error_message}</dd>
              </>
            ) : null}
          </>
        ) : null}
      </dl>
      {result && result.status === 'SUCCESS' ? (
        <>
          <h3>Value</h3>
          {result.value_omitted_bytes ? (
            <p class="muted">
              Value left out of this answer ({result.value_omitted_bytes.toLocaleString('en-US')} bytes).
            </p>
          ) : (
            <JsonView value={result.value} />
          )}
        </>
      ) : null}
      <h3>Configuration</h3>
      <JsonView value={node.configuration} />
    </aside>
  );
}
