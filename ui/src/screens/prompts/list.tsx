import { useEffect, useState } from 'preact/hooks';
import { useApi } from '../../api/use-api.ts';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { useShortcut } from '../../lib/keyboard.ts';
import { useFormatTime } from '../../lib/time.ts';
import { setQuery, useQuery } from '../../lib/url-state.ts';
import { listTemplates } from './api.ts';
import { AppLink, templatePath } from './link.tsx';

const SEARCH_DEBOUNCE_MS = 250;

/** The templates: name search (`name`) and page (`page`) in the URL, 25 a page, by name. */
export function TemplateList() {
  const params = useQuery();
  const name = params.get('name') ?? '';
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1);
  const formatTime = useFormatTime();
  const list = useApi((signal) => listTemplates({ page, name }, signal), [page, name]);
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Prompts</h1>
      <NameSearch value={name} />
      {list.error ? (
        <ErrorMessage>{list.error}</ErrorMessage>
      ) : !list.data ? (
        <Loading />
      ) : list.data.items.length === 0 ? (
        <p>{name ? `No template name contains “${name}”.` : 'No prompt templates yet.'}</p>
      ) : (
        <>
          <table class="prompts-table">
            <caption class="muted">
              {list.data.total} template{list.data.total === 1 ? '' : 's'}
              {name && ` whose name contains “${name}”`}
            </caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Latest version</th>
                <th scope="col">Labels</th>
                <th scope="col">Tags</th>
                <th scope="col">Folder</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((item) => (
                <tr key={item.id}>
                  <th scope="row">
                    <AppLink to={templatePath(item.prompt_name)}>{item.prompt_name}</AppLink>
                  </th>
                  <td>
                    <AppLink to={templatePath(item.prompt_name, `version=${item.version}`)}>
                      v{item.version}
                    </AppLink>
                  </td>
                  <td>
                    <Chips values={item.release_labels} kind="label" />
                  </td>
                  <td>
                    <Chips values={item.tags} kind="tag" />
                  </td>
                  <td>{item.folder_id === null ? <span class="muted">root</span> : `#${item.folder_id}`}</td>
                  <td>{formatTime(item.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} pages={list.data.pages} />
        </>
      )}
    </section>
  );
}

export function Chips({ values, kind }: { values: string[]; kind: 'label' | 'tag' }) {
  if (values.length === 0) return null;
  return (
    <ul class={`prompts-chips prompts-${kind}s`}>
      {values.map((value) => (
        <li key={value}>{value}</li>
      ))}
    </ul>
  );
}

/** Search by name: the URL follows the typing (replaced, debounced), the first page again. */
function NameSearch({ value }: { value: string }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  useShortcut('/', () => document.getElementById('prompts-search')?.focus(), []);
  useEffect(() => {
    if (text === value) return;
    const timer = setTimeout(
      () => setQuery({ name: text.trim(), page: null }, 'replace'),
      SEARCH_DEBOUNCE_MS,
    );
    return () => clearTimeout(timer);
  }, [text]);
  return (
    <search class="prompts-search">
      <label for="prompts-search">Search by name</label>
      <input
        id="prompts-search"
        type="search"
        value={text}
        onInput={(event) => setText(event.currentTarget.value)}
      />
    </search>
  );
}

export function Pager({
  page,
  pages,
  param = 'page',
  label = 'Pages',
}: {
  page: number;
  pages: number;
  param?: string;
  label?: string;
}) {
  if (pages <= 1) return null;
  return (
    <nav class="prompts-pager" aria-label={label}>
      <button type="button" disabled={page <= 1} onClick={() => setQuery({ [param]: String(page - 1) })}>
        Previous
      </button>
      <span>
        Page {page} of {pages}
      </span>
      <button type="button" disabled={page >= pages} onClick={() => setQuery({ [param]: String(page + 1) })}>
        Next
      </button>
    </nav>
  );
}
