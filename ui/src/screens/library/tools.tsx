import { api } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { JsonView } from '../../components/json-view.tsx';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { useFormatTime } from '../../lib/time.ts';
import { useQueryParam } from '../../lib/url-state.ts';
import { link } from './link.ts';

interface Tool {
  id: number;
  name: string;
  description: string | null;
  folder_id: number | null;
  latest_version_number: number;
  updated_at: string;
}

interface ToolVersion {
  version_number: number;
  tool_definition: unknown;
  commit_message: string | null;
  release_labels: string[];
  execution: { type: string; language: string; code: string } | null;
  created_at: string;
}

const TOOLS = '/api/public/v2/tool-registry';
const toolPath = (id: number | string, version?: number) =>
  `library?view=tools&tool=${encodeURIComponent(String(id))}${version ? `&version=${version}` : ''}`;

/** The Tools view: the registry's tools (`tool` selects one), a tool's versions (`version`), a version's definition and code. */
export function ToolsView() {
  const [toolId] = useQueryParam('tool');
  return toolId ? <ToolDetail id={toolId} /> : <ToolList />;
}

function ToolList() {
  const format = useFormatTime();
  const list = useApi(
    (signal) =>
      api<{ tool_registries: Tool[]; total: number }>('GET', TOOLS, {
        signal,
        query: { per_page: 100, sort_by: 'name', sort_order: 'asc' },
      }),
    [],
  );
  if (list.error) return <ErrorMessage>{list.error}</ErrorMessage>;
  if (!list.data) return <Loading what="Loading the tools" />;
  const tools = list.data.tool_registries;
  if (tools.length === 0) return <p class="muted">No tools yet: create one with POST {TOOLS}.</p>;
  return (
    <>
      {list.data.total > tools.length ? (
        <p class="muted">
          The first {tools.length} of {list.data.total} tools, by name.
        </p>
      ) : null}
      <table class="library-table">
        <caption class="visually-hidden">Tools</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Description</th>
            <th scope="col">Versions</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {tools.map((tool) => (
            <tr key={tool.id}>
              <td>
                <a {...link(toolPath(tool.id))}>{tool.name}</a>
              </td>
              <td>{tool.description ?? ''}</td>
              <td>{tool.latest_version_number}</td>
              <td>{format(tool.updated_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function ToolDetail({ id }: { id: string }) {
  const [versionParam] = useQueryParam('version');
  const format = useFormatTime();
  const answer = useApi(
    (signal) =>
      api<{
        tool_registry: Tool & { version: ToolVersion; labels: { name: string; version_number: number }[] };
      }>('GET', `${TOOLS}/${encodeURIComponent(id)}`, {
        signal,
        query: { version: /^\d{1,9}$/.test(versionParam) ? versionParam : undefined },
      }),
    [id, versionParam],
  );
  const tool = answer.data?.tool_registry;
  const version = tool?.version;
  return (
    <>
      <p>
        <a {...link('library?view=tools')}>All tools</a>
      </p>
      {answer.error ? <ErrorMessage>{answer.error}</ErrorMessage> : null}
      {!tool && !answer.error ? <Loading what="Loading the tool" /> : null}
      {tool && version ? (
        <section aria-labelledby="library-tool-title" class="library-detail">
          <h2 id="library-tool-title">{tool.name}</h2>
          {tool.description ? <p>{tool.description}</p> : null}
          <div class="library-versions-layout">
            <nav aria-label="Versions of the tool">
              <h3>Versions</h3>
              <ol class="library-versions" reversed>
                {Array.from(
                  { length: tool.latest_version_number },
                  (_, index) => tool.latest_version_number - index,
                ).map((number) => {
                  const labels = tool.labels
                    .filter((label) => label.version_number === number)
                    .map((label) => label.name);
                  return (
                    <li key={number}>
                      <a
                        {...link(toolPath(tool.id, number))}
                        aria-current={number === version.version_number ? 'page' : undefined}
                      >
                        Version {number}
                        {labels.length ? ` (${labels.join(', ')})` : ''}
                      </a>
                    </li>
                  );
                })}
              </ol>
            </nav>
            <div class="library-version">
              <h3>Version {version.version_number}</h3>
              <p class="muted">
                {format(version.created_at)}
                {version.commit_message ? ` — ${version.commit_message}` : ''}
              </p>
              <h4>Definition</h4>
              <JsonView value={version.tool_definition} />
              <h4>Code</h4>
              {version.execution ? (
                <>
                  <p class="muted">{version.execution.language}</p>
                  <pre class="library-code">{version.execution.code}</pre>
                </>
              ) : (
                <p class="muted">No code: the caller runs this tool.</p>
              )}
            </div>
          </div>
        </section>
      ) : null}
    </>
  );
}
