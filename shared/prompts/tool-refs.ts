import * as z from 'zod';
import { invalid } from '#shared/platform/errors.ts';
import { isJsonObject } from '#shared/platform/json.ts';
import { type ToolVersionRecord, toolStore } from '#shared/tools/registry.ts';
import { toolNameSchema } from '#shared/tools/schemas.ts';
import { lookupByName } from '#shared/versions/read.ts';
import { labelNameSchema } from '#shared/versions/schemas.ts';
import type { PromptBlueprint, Tool } from './llm-kwargs.ts';
import { templateCache, toolTag } from './template-cache.ts';

/**
 * Registry tools referenced from a prompt template's `tools`, in PromptLayer's stored form
 * `{"type": "registry", "tool_registry_id": 5, "label": "production"}` (or `version` instead of the
 * label, or neither for the latest; `name` may name the tool instead of, or besides, its id).
 *
 * A publish checks that every reference resolves in the workspace (`checkToolReferences`, a 422 at the
 * reference otherwise) and stores the reference as given. Every read for use (GET and POST
 * /prompt-templates/{identifier}, PROMPT_TEMPLATE nodes and the report columns that run them) replaces
 * each reference with the function tool of the version it resolves to now (`expandToolReferences`), so
 * a label moved or a new latest version changes what the template expands to, and `llm_kwargs` carries
 * it in the provider's own tool form. A reference that no longer resolves is left out, with a warning.
 *
 * A template read resolves its references afresh (`resolveToolReference`) and its answer is cached under
 * the tags of the tools it expanded (read.ts); the publish check and inline workflow templates resolve
 * through the prompt read cache's own entries (`cachedResolve`). A new version of the tool published
 * through this container drops both at once; otherwise the cache's TTL bounds how stale an expansion is.
 */

export const TOOL_REFERENCE_TYPE = 'registry';

const toolReferenceSchema = z
  .looseObject({
    type: z.literal(TOOL_REFERENCE_TYPE),
    tool_registry_id: z.int().positive().max(Number.MAX_SAFE_INTEGER).nullish(),
    name: toolNameSchema.nullish(),
    version: z.int().positive().max(Number.MAX_SAFE_INTEGER).nullish(),
    label: labelNameSchema.nullish(),
  })
  .refine((ref) => ref.tool_registry_id != null || ref.name != null, {
    message: 'a registry tool reference needs tool_registry_id or name',
  })
  .refine((ref) => ref.version == null || ref.label == null, {
    message: 'a registry tool reference takes version or label, not both',
  });

export interface ToolReference {
  tool_registry_id?: number;
  name?: string;
  version?: number;
  label?: string;
}

export const isToolReference = (tool: unknown): boolean =>
  isJsonObject(tool) && tool.type === TOOL_REFERENCE_TYPE;

/** The reference's fields, or a 422 at `loc` for a malformed one. */
export function parseToolReference(tool: unknown, loc: (string | number)[]): ToolReference {
  const parsed = toolReferenceSchema.safeParse(tool);
  if (!parsed.success)
    throw invalid(loc, parsed.error.issues[0]?.message ?? 'malformed registry tool reference');
  const { tool_registry_id, name, version, label } = parsed.data;
  return {
    ...(tool_registry_id != null ? { tool_registry_id } : {}),
    ...(name != null ? { name } : {}),
    ...(version != null ? { version } : {}),
    ...(label != null ? { label } : {}),
  };
}

/** How a reference reads in messages: `get_weather@label:prod`, `#5@version:2`. */
export function describeToolReference(ref: ToolReference): string {
  const who = ref.name ?? `#${ref.tool_registry_id}`;
  if (ref.version !== undefined) return `${who}@version:${ref.version}`;
  if (ref.label !== undefined) return `${who}@label:${ref.label}`;
  return who;
}

export type ToolResolution =
  | { found: ToolVersionRecord }
  | { missing: 'tool' | 'version' | 'label'; name?: string };

/**
 * The tool version a reference names in the workspace now. By id: the id's name (one GetItem, cached by
 * the store per container), then as by name; an id and a name together must be the same tool. By
 * name: the latest (one Query), a version or a label (one BatchGetItem).
 */
export async function resolveToolReference(workspaceId: number, ref: ToolReference): Promise<ToolResolution> {
  let name = ref.name;
  if (ref.tool_registry_id !== undefined) {
    const named = await toolStore.getName(workspaceId, ref.tool_registry_id);
    if (named === undefined || (name !== undefined && named !== name)) return { missing: 'tool' };
    name = named;
  }
  const result = await lookupByName(toolStore, workspaceId, name ?? '', {
    version: ref.version,
    label: ref.label,
  });
  if ('found' in result) {
    if (ref.tool_registry_id !== undefined && result.found.head.id !== ref.tool_registry_id) {
      return { missing: 'tool' };
    }
    return { found: result.found.version };
  }
  if (result.missing === 'entity') return { missing: 'tool' };
  return { missing: result.missing, name: result.head.name };
}

export type ToolResolver = (workspaceId: number, ref: ToolReference) => Promise<ToolResolution>;

/** `resolveToolReference` through the container's prompt read cache (found versions only). */
async function cachedResolve(workspaceId: number, ref: ToolReference): Promise<ToolResolution> {
  const cache = templateCache();
  const key = [
    'tool',
    workspaceId,
    ref.tool_registry_id ?? '',
    ref.name ?? '',
    ref.version ?? '',
    ref.label ?? '',
  ].join('\u0000');
  const hit = cache.get(key) as ToolVersionRecord | undefined;
  if (hit) return { found: hit };
  const since = cache.generation;
  const resolved = await resolveToolReference(workspaceId, ref);
  if ('found' in resolved) {
    cache.set(key, resolved.found, [toolTag(workspaceId, resolved.found.tool_name)], { since });
  }
  return resolved;
}

function missingMessage(ref: ToolReference, resolution: Exclude<ToolResolution, { found: unknown }>): string {
  switch (resolution.missing) {
    case 'tool':
      return `unknown registry tool ${ref.name ?? ref.tool_registry_id}`;
    case 'version':
      return `registry tool ${resolution.name} has no version ${ref.version}`;
    case 'label':
      return `registry tool ${resolution.name} has no label ${ref.label}`;
  }
}

const referencesOf = (blueprint: PromptBlueprint): { index: number; tool: Tool }[] =>
  blueprint.type === 'chat'
    ? (blueprint.tools ?? []).flatMap((tool, index) => (isToolReference(tool) ? [{ index, tool }] : []))
    : [];

/**
 * At publish: every registry reference in `tools` is well formed and resolves in the workspace now
 * (a 422 at the first that does not, under `loc` + `tools.<index>`). All are looked up at once.
 */
export async function checkToolReferences(
  workspaceId: number,
  blueprint: PromptBlueprint,
  loc: (string | number)[],
): Promise<void> {
  const refs = referencesOf(blueprint).map(({ index, tool }) => ({
    at: [...loc, 'tools', index],
    ref: parseToolReference(tool, [...loc, 'tools', index]),
  }));
  const resolved = await Promise.all(refs.map(({ ref }) => cachedResolve(workspaceId, ref)));
  for (const [i, resolution] of resolved.entries()) {
    const { at, ref } = refs[i]!;
    if (!('found' in resolution)) throw invalid(at, missingMessage(ref, resolution));
  }
}

export interface ExpandedTools {
  blueprint: PromptBlueprint;
  /** The names of the tools expanded (the cache tags of a read that expanded them). */
  toolNames: string[];
  /** Why a reference was left out, one line each; empty when every one resolved. */
  warnings: string[];
}

/**
 * The blueprint with each registry reference in `tools` replaced by the function tool of the version
 * it resolves to now; a reference that is malformed or no longer resolves is left out and named in
 * `warnings`. A blueprint without references comes back as it is, without a round trip.
 */
export async function expandToolReferences(
  workspaceId: number,
  blueprint: PromptBlueprint,
  /** How a reference is looked up (tests give their own); the cached registry read by default. */
  resolve: ToolResolver = cachedResolve,
): Promise<ExpandedTools> {
  const refs = referencesOf(blueprint);
  if (blueprint.type !== 'chat' || refs.length === 0) return { blueprint, toolNames: [], warnings: [] };
  const expansions = await Promise.all(
    refs.map(async ({ index, tool }): Promise<[number, ToolVersionRecord | string]> => {
      let ref: ToolReference;
      try {
        ref = parseToolReference(tool, ['prompt_template', 'tools', index]);
      } catch (error) {
        return [index, `registry tool reference tools[${index}] was left out: ${(error as Error).message}`];
      }
      const resolution = await resolve(workspaceId, ref);
      if ('found' in resolution) return [index, resolution.found];
      return [
        index,
        `registry tool ${describeToolReference(ref)} was left out: ${missingMessage(ref, resolution)}`,
      ];
    }),
  );
  const byIndex = new Map(expansions);
  const tools = (blueprint.tools ?? []).flatMap((tool, index): Tool[] => {
    const expanded = byIndex.get(index);
    if (expanded === undefined) return [tool];
    return typeof expanded === 'string'
      ? []
      : [{ type: 'function', function: { ...expanded.tool_definition } }];
  });
  const found = expansions.flatMap(([, expanded]) => (typeof expanded === 'string' ? [] : [expanded]));
  const warnings = expansions.flatMap(([, expanded]) => (typeof expanded === 'string' ? [expanded] : []));
  const toolNames = [...new Set(found.map((version) => version.tool_name))];
  return { blueprint: { ...blueprint, tools }, toolNames, warnings };
}
