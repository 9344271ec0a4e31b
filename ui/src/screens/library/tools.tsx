import { api } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { JsonView } from '../../components/json-view.tsx';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { useFormatTime } from '../../lib/time.ts';
import { navigate, useQueryParam } from '../../lib/url-state.ts';
import { link } from './link.ts';
import { TextDiff } from './tool-diff.tsx';

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
const toolPath = (id: number | string, version?: number, compare?: string) =>
  `library?view=tools&tool=${encodeURIComponent(String(id))}${version ? `&version=${version}` : ''}${compare ? `&compare=${compare}` : ''}`;
const versionNumber = (value: string) => (/^\d{1,9}$/.test(value) ? value : undefined);
const definitionText = (version: ToolVersion) => JSON.stringify(version.tool_definition, null, 2);

type ToolAnswer = {
  tool_registry: Tool & { version: ToolVersion; labels: { name: string; version_number: number }[] };
};
const readTool = (id: string, version: string | undefined, signal: AbortSignal) =>
  api<ToolAnswer>('GET', `${TOOLS}/${encodeURIComponent(id)}`, { signal, query: { version } });

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
  const version = versionNumber(useQueryParam('version')[0]);
  const compare = versionNumber(useQueryParam('compare')[0]);
  const format = useFormatTime();
  const answer = useApi(
    async (signal) => {
      const [shown, compared] = await Promise.all([
        readTool(id, version, signal),
        compare ? readTool(id, compare, signal) : undefined,
      ]);
      return { tool: shown.tool_registry, compared: compared?.tool_registry.version };
    },
    [id, version, compare],
  );
  const tool = answer.data?.tool;
  const shown = tool?.version;
  const compared = answer.data?.compared;
  return (
    <>
      <p>
        <a {...link('library?view=tools')}>All tools</a>
      </p>
      {answer.error ? <ErrorMessage>{answer.error}</ErrorMessage> : null}
      {!tool && !answer.error ? <Loading what="Loading the tool" /> : null}
      {tool && shown ? (
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
                        aria-current={number === shown.version_number ? 'page' : undefined}
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
              <h3>Version {shown.version_number}</h3>
              <p class="muted">
                {format(shown.created_at)}
                {shown.commit_message ? ` — ${shown.commit_message}` : ''}
              </p>
              {tool.latest_version_number > 1 ? (
                <p class="library-toolbar">
                  <label for="library-tool-compare">Compare with</label>
                  <select
                    id="library-tool-compare"
                    value={compare ?? ''}
                    onChange={(event) =>
                      navigate(toolPath(tool.id, shown.version_number, event.currentTarget.value))
                    }
                  >
                    <option value="">no other version</option>
                    {Array.from({ length: tool.latest_version_number }, (_, index) => index + 1)
                      .filter((number) => number !== shown.version_number)
                      .map((number) => (
                        <option key={number} value={String(number)}>
                          version {number}
                        </option>
                      ))}
                  </select>
                </p>
              ) : null}
              {compared ? (
                <>
                  <p class="muted">
                    Changes from version {compared.version_number} to version {shown.version_number}.
                  </p>
                  <TextDiff
                    label="Definition"
                    before={definitionText(compared)}
                    after={definitionText(shown)}
                  />
                  <TextDiff
                    label="Code"
                    before={compared.execution?.code ?? ''}
                    after={shown.execution?.code ?? ''}
                  />
                </>
              ) : (
                <>
                  <h4>Definition</h4>
                  <JsonView value={shown.tool_definition} />
                  <h4>Code</h4>
                  {shown.execution ? (
                    <>
                      <p class="muted">{shown.execution.language}</p>
                      <pre class="library-code">{shown.execution.code}</pre>
                    </>
                  ) : (
                    <p class="muted">No code: the caller runs this tool.</p>
                  )}
                </>
              )}
            </div>
          </div>
        </section>
      ) : null}
    </>
  );
}
