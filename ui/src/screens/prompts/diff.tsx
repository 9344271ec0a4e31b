import { diffLines, diffWordsWithSpace } from 'diff';
import { useApi } from '../../api/use-api.ts';
import { boundedDiff, Changes, changed } from '../../components/changes.tsx';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { readVersion, type TemplateVersion } from './api.ts';
import { configOf, messagesOf } from './content.ts';

/** Word-level diff of each message (paired by position) and a line diff of the configuration JSON. */
export function DiffBody({ from, to }: { from: TemplateVersion; to: TemplateVersion }) {
  const before = messagesOf(from.prompt_template);
  const after = messagesOf(to.prompt_template);
  const config = boundedDiff(diffLines, configOf(from), configOf(to));
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
        const changes = boundedDiff(diffWordsWithSpace, old?.text ?? '', now?.text ?? '');
        return (
          <article key={index} class="prompts-message" aria-label={`Message ${index + 1}: ${role}`}>
            <h4>
              {index + 1}. {role}
              {!old && ' (added)'}
              {!changed(changes) && <span class="muted"> · unchanged</span>}
            </h4>
            <Changes changes={changes} class="prompts-text prompts-diff" />
          </article>
        );
      })}
      <h3>Model and settings {!changed(config) && <span class="muted">· unchanged</span>}</h3>
      <Changes changes={config} class="prompts-text prompts-diff" />
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
