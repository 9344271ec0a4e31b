import { useMemo, useState } from 'preact/hooks';
import { api, errorMessage } from '../../api/client.ts';
import { useApi } from '../../api/use-api.ts';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { useFormatTime } from '../../lib/time.ts';
import { navigate, useQueryParam } from '../../lib/url-state.ts';
import { downloadFromApi } from './download.ts';
import { link } from './link.ts';

interface Collection {
  id: string;
  name: string;
  provider: string | null;
  latest_version_number: number;
  updated_at: string;
}

interface CollectionVersion {
  number: number;
  file_paths: string[];
  commit_message: string | null;
  release_label: string | null;
  created_at: string;
}

interface CollectionAnswer {
  skill_collection: Collection;
  files: Record<string, string>;
  version: CollectionVersion;
  /** Files left out of a JSON answer past 5 MiB, with their sizes in bytes (the ZIP holds them). */
  omitted_files?: Record<string, number>;
}

const COLLECTIONS = '/api/public/v2/skill-collections';
const collectionPath = (id: string, more: Record<string, string | number> = {}) =>
  `library?${new URLSearchParams({ view: 'skills', collection: id, ...Object.fromEntries(Object.entries(more).map(([k, v]) => [k, String(v)])) })}`;

/** The Skills view: the skill collections (`collection`), a collection's versions (`version`), its files (`file`), the ZIP. */
export function SkillsView() {
  const [collectionId] = useQueryParam('collection');
  return collectionId ? <CollectionDetail id={collectionId} /> : <CollectionList />;
}

function CollectionList() {
  const format = useFormatTime();
  const list = useApi(
    (signal) =>
      api<{ skill_collections: Collection[]; total: number }>('GET', COLLECTIONS, {
        signal,
        query: { per_page: 100, sort_by: 'name', sort_order: 'asc' },
      }),
    [],
  );
  if (list.error) return <ErrorMessage>{list.error}</ErrorMessage>;
  if (!list.data) return <Loading what="Loading the skill collections" />;
  const collections = list.data.skill_collections;
  if (collections.length === 0)
    return <p class="muted">No skill collections yet: create one with POST {COLLECTIONS}.</p>;
  return (
    <>
      {list.data.total > collections.length ? (
        <p class="muted">
          The first {collections.length} of {list.data.total} collections, by name.
        </p>
      ) : null}
      <table class="library-table">
        <caption class="visually-hidden">Skill collections</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Provider</th>
            <th scope="col">Versions</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {collections.map((collection) => (
            <tr key={collection.id}>
              <td>
                <a {...link(collectionPath(collection.id))}>{collection.name}</a>
              </td>
              <td>{collection.provider ?? ''}</td>
              <td>{collection.latest_version_number}</td>
              <td>{format(collection.updated_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

interface FileDir {
  name: string;
  path: string;
  dirs: FileDir[];
  files: { name: string; path: string }[];
}

/** The collection's paths as nested directories (paths are sorted by the API; directories first here). */
function fileTree(paths: string[]): FileDir {
  const root: FileDir = { name: '', path: '', dirs: [], files: [] };
  for (const path of paths) {
    const parts = path.split('/');
    let dir = root;
    for (const part of parts.slice(0, -1)) {
      const dirPath = dir.path ? `${dir.path}/${part}` : part;
      let next = dir.dirs.find((candidate) => candidate.name === part);
      if (!next) {
        next = { name: part, path: dirPath, dirs: [], files: [] };
        dir.dirs.push(next);
      }
      dir = next;
    }
    dir.files.push({ name: parts[parts.length - 1] ?? path, path });
  }
  return root;
}

const formatBytes = (bytes: number) =>
  bytes < 1024
    ? `${bytes} bytes`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function CollectionDetail({ id }: { id: string }) {
  const [versionParam] = useQueryParam('version');
  const [filePath] = useQueryParam('file');
  const format = useFormatTime();
  const [downloading, setDownloading] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const version = /^\d{1,9}$/.test(versionParam) ? versionParam : undefined;
  const answer = useApi(
    (signal) =>
      api<CollectionAnswer>('GET', `${COLLECTIONS}/${encodeURIComponent(id)}`, {
        signal,
        query: { version },
      }),
    [id, version],
  );
  const data = answer.data;
  const tree = useMemo(() => (data ? fileTree(data.version.file_paths) : null), [data]);
  const at = (more: Record<string, string | number>) =>
    collectionPath(id, { ...(version ? { version } : {}), ...more });

  const download = async () => {
    if (!data) return;
    setDownloading({ busy: true });
    try {
      await downloadFromApi(
        `${COLLECTIONS}/${encodeURIComponent(id)}`,
        { format: 'zip', version: String(data.version.number) },
        'application/zip',
        `${data.skill_collection.name}-v${data.version.number}.zip`,
      );
      setDownloading({ busy: false });
    } catch (error) {
      setDownloading({ busy: false, error: errorMessage(error) });
    }
  };

  const renderDir = (dir: FileDir) => (
    <ul class="library-files">
      {dir.dirs.map((child) => (
        <li key={child.path}>
          <span class="library-dir">{child.name}/</span>
          {renderDir(child)}
        </li>
      ))}
      {dir.files.map((file) => (
        <li key={file.path}>
          <a {...link(at({ file: file.path }))} aria-current={file.path === filePath ? 'page' : undefined}>
            {file.name}
          </a>
        </li>
      ))}
    </ul>
  );

  const content = data && filePath ? data.files[filePath] : undefined;
  const omitted = data && filePath ? data.omitted_files?.[filePath] : undefined;
  return (
    <>
      <p>
        <a {...link('library?view=skills')}>All skill collections</a>
      </p>
      {answer.error ? <ErrorMessage>{answer.error}</ErrorMessage> : null}
      {!data && !answer.error ? <Loading what="Loading the collection" /> : null}
      {data && tree ? (
        <section aria-labelledby="library-collection-title" class="library-detail">
          <h2 id="library-collection-title">{data.skill_collection.name}</h2>
          <div class="library-toolbar">
            <label for="library-collection-version">Version</label>
            <select
              id="library-collection-version"
              value={String(data.version.number)}
              onChange={(event) =>
                navigate(
                  collectionPath(id, {
                    version: event.currentTarget.value,
                    ...(filePath ? { file: filePath } : {}),
                  }),
                )
              }
            >
              {Array.from(
                { length: data.skill_collection.latest_version_number },
                (_, index) => data.skill_collection.latest_version_number - index,
              ).map((number) => (
                <option key={number} value={String(number)}>
                  {number}
                  {number === data.skill_collection.latest_version_number ? ' (latest)' : ''}
                </option>
              ))}
            </select>
            <span class="muted">
              {format(data.version.created_at)}
              {data.version.release_label ? ` — label ${data.version.release_label}` : ''}
              {data.version.commit_message ? ` — ${data.version.commit_message}` : ''}
            </span>
            <button type="button" onClick={download} disabled={downloading.busy}>
              {downloading.busy ? 'Downloading…' : 'Download ZIP'}
            </button>
          </div>
          {downloading.error ? <ErrorMessage>{downloading.error}</ErrorMessage> : null}
          <div class="library-versions-layout">
            <nav aria-label="Files of the collection" class="library-file-tree">
              <h3>Files ({data.version.file_paths.length})</h3>
              {renderDir(tree)}
            </nav>
            <div class="library-version">
              {filePath ? (
                <>
                  <h3>{filePath}</h3>
                  {content !== undefined ? (
                    <>
                      <p class="muted">{formatBytes(new TextEncoder().encode(content).length)}</p>
                      <pre class="library-code">{content}</pre>
                    </>
                  ) : omitted !== undefined ? (
                    <p>
                      {formatBytes(omitted)}: too large to show here (the API leaves it out of its JSON
                      answer); it is in the ZIP.
                    </p>
                  ) : (
                    <ErrorMessage>This version has no file {filePath}.</ErrorMessage>
                  )}
                </>
              ) : (
                <p class="muted">Choose a file to read it.</p>
              )}
            </div>
          </div>
        </section>
      ) : null}
    </>
  );
}
