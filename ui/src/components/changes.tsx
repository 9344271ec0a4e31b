import type { Change } from 'diff';

/** Past this a diff gives up (two long, unrelated texts): the text is shown as replaced whole. */
const DIFF_TIMEOUT_MS = 500;

/** A diff of `a` and `b` by `diff` (lines, words), bounded in time: past the limit, all of a is replaced by b. */
export function boundedDiff(
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

export const changed = (changes: Change[]) => changes.some((change) => change.added || change.removed);

/** Changes as text: added parts in <ins>, removed parts in <del> (screen readers name both). */
export function Changes({ changes, class: className }: { changes: Change[]; class: string }) {
  return (
    <pre class={className}>
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
