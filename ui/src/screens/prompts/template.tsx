import { useState } from 'preact/hooks';
import { useCanEdit } from '../../api/session.ts';
import { useApi } from '../../api/use-api.ts';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { useShortcut } from '../../lib/keyboard.ts';
import { useFormatTime } from '../../lib/time.ts';
import { setQuery, useQuery } from '../../lib/url-state.ts';
import { listLabels, listVersions, readVersion, type TemplateVersion } from './api.ts';
import { configOf, messagesOf } from './content.ts';
import { VersionDiff } from './diff.tsx';
import { LabelsPanel } from './labels.tsx';
import { AppLink, templatePath } from './link.tsx';
import { Chips, Pager } from './list.tsx';
import { parseCompare, positiveInt } from './params.ts';
import { LabelReview } from './review.tsx';

/**
 * One template. The URL holds the view: `version` (the version shown, default the latest),
 * `compare=<a>..<b>` (a diff of two versions), `move=<label>&to=<n>` (a label move under review) and
 * `vpage` (the timeline's page).
 */
export function TemplatePage({ name }: { name: string }) {
  const params = useQuery();
  const canEdit = useCanEdit('prompts');
  // Bumped after a label changes: the labels, the timeline and the version shown are read again.
  const [revision, setRevision] = useState(0);
  const changed = () => setRevision((n) => n + 1);
  const latest = useApi((signal) => readVersion(name, null, signal), [name, revision]);
  const labels = useApi((signal) => listLabels(name, signal), [name, revision]);
  const shown = positiveInt(params.get('version'));
  const compare = parseCompare(params.get('compare'));
  const move = params.get('move');
  const moveTo = positiveInt(params.get('to'));
  // Escape closes a diff or a review (a navigation: back reopens it).
  useShortcut('Escape', () => setQuery({ compare: null, move: null, to: null }), []);

  if (latest.error)
    return <TemplateFrame name={name}>{<ErrorMessage>{latest.error}</ErrorMessage>}</TemplateFrame>;
  if (!latest.data) return <TemplateFrame name={name}>{<Loading />}</TemplateFrame>;
  const template = latest.data;
  const labelList = labels.data ?? [];

  let view: preact.JSX.Element;
  if (move !== null && moveTo !== null) {
    const label = labelList.find((candidate) => candidate.release_label === move);
    view = labels.loading ? (
      <Loading />
    ) : label ? (
      <LabelReview
        name={name}
        promptId={template.id}
        label={label}
        to={moveTo}
        onMoved={() => {
          setQuery({ move: null, to: null, version: String(moveTo) });
          changed();
        }}
      />
    ) : (
      <ErrorMessage>This template has no label “{move}”.</ErrorMessage>
    );
  } else if (compare) {
    view = (
      <section aria-labelledby="view-title">
        <h2 id="view-title">
          Changes from version {compare.a} to version {compare.b}
        </h2>
        <VersionDiff name={name} a={compare.a} b={compare.b} />
      </section>
    );
  } else {
    view = (
      <VersionView name={name} version={shown ?? template.version} latest={template} revision={revision} />
    );
  }

  return (
    <TemplateFrame name={name} tags={template.tags}>
      <div class="prompts-layout">
        <div class="prompts-side">
          <LabelsPanel
            promptId={template.id}
            labels={labels}
            latestVersion={template.version}
            shownVersion={shown ?? template.version}
            canEdit={canEdit}
            onChanged={changed}
          />
          <Timeline
            name={name}
            latestVersion={template.version}
            shownVersion={compare || move ? null : (shown ?? template.version)}
            revision={revision}
          />
        </div>
        <div class="prompts-main">{view}</div>
      </div>
    </TemplateFrame>
  );
}

function TemplateFrame({
  name,
  tags = [],
  children,
}: {
  name: string;
  tags?: string[];
  children: preact.ComponentChildren;
}) {
  return (
    <section aria-labelledby="screen-title">
      <p class="prompts-back">
        <AppLink to="prompts">All prompts</AppLink>
      </p>
      <h1 id="screen-title">{name}</h1>
      {tags.length > 0 && (
        <p class="prompts-tags-line">
          <span class="muted">Tags</span> <Chips values={tags} kind="tag" />
        </p>
      )}
      {children}
    </section>
  );
}

/** The versions, newest first, 30 a page (`vpage`), with what to open or compare. */
function Timeline({
  name,
  latestVersion,
  shownVersion,
  revision,
}: {
  name: string;
  latestVersion: number;
  /** The version rendered beside the timeline (none during a diff or a review). */
  shownVersion: number | null;
  revision: number;
}) {
  const params = useQuery();
  const page = positiveInt(params.get('vpage')) ?? 1;
  const formatTime = useFormatTime();
  const versions = useApi((signal) => listVersions(name, page, signal), [name, page, revision]);
  return (
    <section aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <CompareForm latestVersion={latestVersion} />
      {versions.error ? (
        <ErrorMessage>{versions.error}</ErrorMessage>
      ) : !versions.data ? (
        <Loading />
      ) : (
        <>
          <table class="prompts-table prompts-timeline">
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Commit message</th>
                <th scope="col">Created</th>
                <th scope="col">Labels</th>
                <th scope="col">Diff</th>
              </tr>
            </thead>
            <tbody>
              {versions.data.items.map((version) => (
                <tr key={version.id} class={version.version_number === shownVersion ? 'selected' : undefined}>
                  <th scope="row">
                    <AppLink
                      to={templatePath(name, `version=${version.version_number}`)}
                      current={version.version_number === shownVersion}
                    >
                      v{version.version_number}
                    </AppLink>
                  </th>
                  <td>{version.commit_message ?? <span class="muted">none</span>}</td>
                  <td>{formatTime(version.created_at)}</td>
                  <td>
                    <Chips values={version.release_labels} kind="label" />
                  </td>
                  <td>
                    {version.version_number > 1 && (
                      <AppLink
                        to={templatePath(
                          name,
                          `compare=${version.version_number - 1}..${version.version_number}`,
                        )}
                      >
                        vs v{version.version_number - 1}
                      </AppLink>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} pages={versions.data.pages} param="vpage" label="Version pages" />
        </>
      )}
    </section>
  );
}

/** Any two versions: writes `compare=<a>..<b>` (a navigation: back returns to the version shown). */
function CompareForm({ latestVersion }: { latestVersion: number }) {
  const params = useQuery();
  const current = parseCompare(params.get('compare'));
  const [a, setA] = useState(String(current?.a ?? Math.max(1, latestVersion - 1)));
  const [b, setB] = useState(String(current?.b ?? latestVersion));
  return (
    <form
      class="prompts-compare"
      onSubmit={(event) => {
        event.preventDefault();
        const from = positiveInt(a);
        const to = positiveInt(b);
        if (from && to) setQuery({ compare: `${from}..${to}`, version: null, move: null, to: null });
      }}
    >
      <label for="compare-from">From version</label>
      <input
        id="compare-from"
        type="number"
        min={1}
        max={latestVersion}
        required
        value={a}
        onInput={(event) => setA(event.currentTarget.value)}
      />
      <label for="compare-to">to version</label>
      <input
        id="compare-to"
        type="number"
        min={1}
        max={latestVersion}
        required
        value={b}
        onInput={(event) => setB(event.currentTarget.value)}
      />
      <button type="submit">Compare</button>
    </form>
  );
}

/** One version rendered: its messages by role, as text, and its model and settings. */
function VersionView({
  name,
  version,
  latest,
  revision,
}: {
  name: string;
  version: number;
  latest: TemplateVersion;
  revision: number;
}) {
  const formatTime = useFormatTime();
  const loaded = useApi(
    (signal) => (version === latest.version ? Promise.resolve(latest) : readVersion(name, version, signal)),
    [name, version, latest, revision],
  );
  return (
    <section aria-labelledby="view-title">
      <h2 id="view-title">
        Version {version}
        {version === latest.version && <span class="muted"> (latest)</span>}
      </h2>
      {loaded.error ? (
        <ErrorMessage>{loaded.error}</ErrorMessage>
      ) : !loaded.data ? (
        <Loading />
      ) : (
        <>
          <p class="prompts-version-meta">
            {loaded.data.commit_message ?? <span class="muted">No commit message</span>}
            <span class="muted"> · {formatTime(loaded.data.created_at)}</span>
            {version > 1 && (
              <>
                {' · '}
                <AppLink to={templatePath(name, `compare=${version - 1}..${version}`)}>
                  Changes from version {version - 1}
                </AppLink>
              </>
            )}
            {' · '}
            <AppLink to={`playground?prompt=${encodeURIComponent(name)}&version=${version}`}>
              Open in playground
            </AppLink>
          </p>
          <h3>Messages</h3>
          {messagesOf(loaded.data.prompt_template).map((message, index) => (
            <article key={index} class="prompts-message" aria-label={`Message ${index + 1}: ${message.role}`}>
              <h4>
                {index + 1}. {message.role}
              </h4>
              <pre class="prompts-text">{message.text}</pre>
            </article>
          ))}
          <h3>Model and settings</h3>
          <pre class="prompts-text">{configOf(loaded.data)}</pre>
        </>
      )}
    </section>
  );
}
