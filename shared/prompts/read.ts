import { copyInStep } from '#shared/versions/read.ts';
import { promptStore } from './kind.ts';
import type { ModelMetadata, PromptBlueprint } from './llm-kwargs/blueprint.ts';
import { renderLlmKwargs } from './llm-kwargs/build.ts';
import { readTemplate } from './lookup.ts';
import { labelOf, type VersionRecord } from './records.ts';
import { getTemplateItems, type HeadAndLatest, readHeadAndLatest } from './repository.ts';
import type { ReadOptions } from './schemas.ts';
import { type ResolvedSnippet, resolveSnippets, type SnippetLoader } from './snippets.ts';
import { templateCache, templateTag, toolTag } from './template-cache.ts';
import { expandToolReferences, resolveToolReference } from './tool-refs.ts';
import { type RawTemplateView, toRawTemplateView } from './views.ts';

/**
 * Reading templates for use: a version found (lookup.ts) with its snippets and registry tools expanded
 * and its llm_kwargs rendered. Round trips on a cache miss: the latest by name, one Query; a pinned version or a label, one
 * BatchGetItem (the head with the version, or with the label's copy of its version); by id, one GetItem
 * for the id's name first, once per container. Each snippet level costs one more parallel round.
 */

/**
 * Loads one snippet level in one round: a Query (head and latest version) per template named without a
 * version or label, and one BatchGetItem for every pinned version and every labelled reference (its
 * template's head with the label's copy of its version), all issued at once. Only a label whose copy is
 * out of step with its head needs a second BatchGetItem.
 */
export function snippetLoader(workspaceId: number): SnippetLoader {
  return async (refs) => {
    const latestNames = [
      ...new Set(
        refs.filter((ref) => ref.version === undefined && ref.label === undefined).map((ref) => ref.name),
      ),
    ];
    const labelled = refs.flatMap((ref) =>
      ref.label === undefined ? [] : [{ name: ref.name, label: ref.label }],
    );
    const [items, templates] = await Promise.all([
      getTemplateItems(workspaceId, {
        versions: refs.flatMap((ref) =>
          ref.version === undefined ? [] : [{ name: ref.name, number: ref.version }],
        ),
        heads: labelled.map((ref) => ref.name),
        labelCopies: labelled,
      }),
      Promise.all(
        latestNames.map(async (name) => [name, await readHeadAndLatest(workspaceId, name)] as const),
      ),
    ]);
    const byName = new Map<string, HeadAndLatest>(templates);

    const resolved = new Map<string, ResolvedSnippet | undefined>();
    const outOfStep: { raw: string; label: string; name: string; number: number }[] = [];
    for (const ref of refs) {
      if (ref.version !== undefined) {
        resolved.set(ref.raw, asSnippet(items.version(ref.name, ref.version), null));
      } else if (ref.label === undefined) {
        const { head, latest } = byName.get(ref.name) ?? {};
        if (head && latest) resolved.set(ref.raw, asSnippet(latest, null));
      } else {
        const head = items.head(ref.name);
        const entry = head && labelOf(head, ref.label);
        const copy = entry && copyInStep(promptStore, entry, items.labelCopy(ref.name, ref.label));
        if (copy) resolved.set(ref.raw, asSnippet(copy, ref.label));
        else if (entry)
          outOfStep.push({ raw: ref.raw, label: ref.label, name: ref.name, number: entry.version_number });
      }
    }
    if (outOfStep.length) {
      const versions = await getTemplateItems(workspaceId, {
        versions: outOfStep.map(({ name, number }) => ({ name, number })),
      });
      for (const ref of outOfStep)
        resolved.set(ref.raw, asSnippet(versions.version(ref.name, ref.number), ref.label));
    }
    return resolved;
  };
}

function asSnippet(version: VersionRecord | undefined, label: string | null): ResolvedSnippet | undefined {
  return (
    version && {
      prompt_name: version.prompt_name,
      version: version.number,
      label,
      blueprint: version.prompt_template as PromptBlueprint,
    }
  );
}

/**
 * The raw-template answer and the cache tags of what it depends on (itself, its snippets and the
 * registry tools it expanded). Registry tool references are always expanded (tool-refs.ts): a read is
 * for use, and `llm_kwargs` is built from the expanded tools.
 */
export async function loadRawTemplate(
  workspaceId: number,
  identifier: string,
  options: ReadOptions,
): Promise<{ view: RawTemplateView; tags: string[] }> {
  const { head, version } = await readTemplate(workspaceId, identifier, options);
  let blueprint = version.prompt_template as PromptBlueprint;
  let snippets: RawTemplateView['snippets'] = [];
  if (options.resolveSnippets) {
    ({ blueprint, snippets } = await resolveSnippets(blueprint, snippetLoader(workspaceId), {
      loc: ['query', 'resolve_snippets'],
    }));
  }
  // Resolved afresh, not through the cache's own tool entries: this answer is what gets cached, so a
  // cached resolution would age it past the TTL, and a no-cache read would still see a stale tool.
  const tools = await expandToolReferences(workspaceId, blueprint, resolveToolReference);
  blueprint = tools.blueprint;
  const llmKwargs = options.includeLlmKwargs
    ? renderLlmKwargs(blueprint, version.metadata?.model as ModelMetadata | null | undefined)
    : undefined;
  const view = toRawTemplateView(
    workspaceId,
    head,
    version,
    blueprint as RawTemplateView['prompt_template'],
    snippets,
    llmKwargs,
  );
  if (tools.warnings.length) view.warning = tools.warnings.join('; ');
  return {
    view,
    tags: [
      ...[head.name, ...snippets.map((snippet) => snippet.prompt_name)].map((name) =>
        templateTag(workspaceId, name),
      ),
      ...tools.toolNames.map((name) => toolTag(workspaceId, name)),
    ],
  };
}

/** GET /prompt-templates/{identifier} through the container's cache; `bypass` reads afresh and refreshes it. */
export async function getRawTemplate(
  workspaceId: number,
  identifier: string,
  options: ReadOptions,
  bypass = false,
): Promise<RawTemplateView> {
  const cache = templateCache();
  const key = `${workspaceId}\u0000${identifier}\u0000${options.version ?? ''}\u0000${options.label ?? ''}\u0000${
    options.resolveSnippets ? 1 : 0
  }${options.includeLlmKwargs ? 1 : 0}`;
  if (!bypass) {
    const hit = cache.get(key) as RawTemplateView | undefined;
    if (hit) return hit;
  }
  const since = cache.generation;
  const { view, tags } = await loadRawTemplate(workspaceId, identifier, options);
  cache.set(key, view, tags, { since });
  return view;
}
