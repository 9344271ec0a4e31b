import { diffLines } from 'diff';
import { boundedDiff, Changes, changed } from '../../components/changes.tsx';

/** A line diff of two texts, under its label. */
export function TextDiff({ label, before, after }: { label: string; before: string; after: string }) {
  const changes = boundedDiff(diffLines, before, after);
  return (
    <>
      <h4>
        {label}
        {changed(changes) ? null : <span class="muted"> · unchanged</span>}
      </h4>
      <Changes changes={changes} class="library-code library-diff" />
    </>
  );
}
