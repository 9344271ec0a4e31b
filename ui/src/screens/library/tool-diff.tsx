import { type Change, diffLines } from 'diff';

/** Past this a diff gives up (two long, unrelated texts): the text is shown as replaced whole. */
const DIFF_TIMEOUT_MS = 500;

function lineChanges(before: string, after: string): Change[] {
  return (
    diffLines(before, after, { timeout: DIFF_TIMEOUT_MS }) ?? [
      { value: before, removed: true, added: false, count: 1 },
      { value: after, added: true, removed: false, count: 1 },
    ]
  );
}

/** A line diff of two texts: added lines in <ins>, removed in <del> (screen readers name both). */
export function TextDiff({ label, before, after }: { label: string; before: string; after: string }) {
  const changes = lineChanges(before, after);
  const same = !changes.some((change) => change.added || change.removed);
  return (
    <>
      <h4>
        {label}
        {same ? <span class="muted"> · unchanged</span> : null}
      </h4>
      <pre class="library-code library-diff">
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
    </>
  );
}
