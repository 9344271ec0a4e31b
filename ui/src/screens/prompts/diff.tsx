import { type Change, diffLines, diffWordsWithSpace } from 'diff';
import { useApi } from '../../api/use-api.ts';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { readVersion, type TemplateVersion } from './api.ts';
import { configOf, messagesOf } from './content.ts';

/** Changes as text: added parts in <ins>, removed parts in <del> (screen readers name both). */
function Changes({ changes }: { changes: Change[] }) {
  return (
    <pre class="prompts-text prompts-diff">
      {changes.map((change, index) =>
        change.added ? (
          <ins key={index}>{change.value}</ins>
        ) : change.removed ? (
          <del key={index}>{change.value}</del>
        ) : (
          <span key={index}>{change.value}</span>
        ),
      )}
    </pre>
  );
}

const changed = (changes: Change[]) => changes.some((change) => change.added || change.removed);

/** Past this a diff gives up (two long, unrelated texts): the text is shown as replaced whole. */
const DIFF_TIMEOUT_MS = 500;

function bounded(
  diff: (a: string, b: string, options: { timeout: number }) => Change[] | undefined,
  a: string,
  b: string,
): Change[] {
  return (
    diff(a, b, { timeout: DIFF_TIMEOUT_MS }) ?? [
      { value: a, removed: true, added: false, count: 1 },
      { value: b, added: true, removed: false, count: 1 },
    ]
  );
}

/** Word-level diff of each message (paired by position) and a line diff of the configuration JSON. */
export function DiffBody({ from, to }: { from: TemplateVersion; to: TemplateVersion }) {
  const before = messagesOf(from.prompt_template);
  const after = messagesOf(to.prompt_template);
  const config = bounded(diffLines, configOf(from), configOf(to));
  return (
    <div class="prompts-diff-body">
      <h3>Messages</h3>
      {Array.from({ length: Math.max(before.length, after.length) }, (_, index) => {
        const old = before[index];
        const now = after[index];
        const role =
          old && now && old.role !== now.role
            ? `${old.role} → ${now.role}`
            : (now?.role ?? `${old?.role ?? ''} (removed)`);
        const changes = bounded(diffWordsWithSpace, old?.text ?? '', now?.text ?? '');
        return (
          <article key={index} class="prompts-message" aria-label={`Message ${index + 1}: ${role}`}>
            <h4>
              {index + 1}. {role}
              {!old && ' (added)'}
              {!changed(changes) && <span class="muted"> · unchanged</span>}
            </h4>
            <Changes changes={changes} />
          </article>
        );
      })}
      <h3>Model and settings {!changed(config) && <span class="muted">· unchanged</span>}</h3>
      <Changes changes={config} />
    </div>
  );
}

/** Loads versions `a` and `b` of a template and shows what changed from a to b. */
export function VersionDiff({ name, a, b }: { name: string; a: number; b: number }) {
  const loaded = useApi(
    (signal) => Promise.all([readVersion(name, a, signal), readVersion(name, b, signal)]),
    [name, a, b],
  );
  if (loaded.error) return <ErrorMessage>{loaded.error}</ErrorMessage>;
  if (!loaded.data) return <Loading what={`Loading versions ${a} and ${b}`} />;
  const [from, to] = loaded.data;
  return <DiffBody from={from} to={to} />;
}
