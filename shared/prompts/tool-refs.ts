import { invalid, payloadTooLarge } from '#shared/platform/errors.ts';
import { isJsonObject, storedJsonBytes } from '#shared/platform/json.ts';
import * as z from '#shared/platform/zod.ts';
import { type ToolVersionRecord, toolStore } from '#shared/tools/registry.ts';
import { toolNameSchema } from '#shared/tools/schemas.ts';
import { lookupByName } from '#shared/versions/read.ts';
import { labelNameSchema } from '#shared/versions/schemas.ts';
import type { PromptBlueprint, Tool } from './llm-kwargs/blueprint.ts';
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
    tool_registry_id: z.nullish(z.int().check(z.positive(), z.lte(Number.MAX_SAFE_INTEGER))),
    name: z.nullish(toolNameSchema),
    version: z.nullish(z.int().check(z.positive(), z.lte(Number.MAX_SAFE_INTEGER))),
    label: z.nullish(labelNameSchema),
  })
  .check(
    z.refine((ref) => ref.tool_registry_id != null || ref.name != null, {
      message: 'a registry tool reference needs tool_registry_id or name',
    }),
    z.refine((ref) => ref.version == null || ref.label == null, {
      message: 'a registry tool reference takes version or label, not both',
    }),
  );

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

/** What a reference names (references with one key resolve alike). */
const referenceKey = (ref: ToolReference): string =>
  [ref.tool_registry_id ?? '', ref.name ?? '', ref.version ?? '', ref.label ?? ''].join('\u0000');

/** `resolveToolReference` through the container's prompt read cache (found versions only). */
async function cachedResolve(workspaceId: number, ref: ToolReference): Promise<ToolResolution> {
  const cache = templateCache();
  const key = ['tool', workspaceId, referenceKey(ref)].join('\u0000');
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
 * Whether a template names registry tools. A publish that does needs `tools: read`: every read of the
 * template answers the definitions it names, so a key without it could read tools through a template.
 */
export const hasToolReferences = (blueprint: PromptBlueprint): boolean => referencesOf(blueprint).length > 0;

/**
 * At most this many registry references in one template (OpenAI's bound on the tools of a request): a
 * publish checks no more, and a read looks up no more (the rest are left out with a warning).
 */
export const MAX_TOOL_REFERENCES = 128;

/** Each reference's resolution, every distinct reference looked up once, all at once. */
function resolveEach(
  workspaceId: number,
  refs: readonly ToolReference[],
  resolve: ToolResolver,
): Promise<ToolResolution[]> {
  const lookups = new Map<string, Promise<ToolResolution>>();
  return Promise.all(
    refs.map((ref) => {
      const key = referenceKey(ref);
      let lookup = lookups.get(key);
      if (!lookup) {
        lookup = resolve(workspaceId, ref);
        lookups.set(key, lookup);
      }
      return lookup;
    }),
  );
}

/** The function names of a template's own (inline) function tools. */
const inlineFunctionNames = (blueprint: PromptBlueprint): Set<string> =>
  new Set(
    blueprint.type === 'chat'
      ? (blueprint.tools ?? []).flatMap((tool) =>
          tool.type === 'function' && typeof tool.function?.name === 'string' ? [tool.function.name] : [],
        )
      : [],
  );

/**
 * At publish: at most MAX_TOOL_REFERENCES registry references in `tools`, each well formed, resolving
 * in the workspace now, and to a function whose name no other tool of the template has (providers take
 * each function name once): a 422 at the first that is not, under `loc` + `tools.<index>`, and a 413
 * when the definitions pass MAX_EXPANDED_TOOL_BYTES. Every distinct reference is looked up once, all
 * at once.
 */
export async function checkToolReferences(
  workspaceId: number,
  blueprint: PromptBlueprint,
  loc: (string | number)[],
): Promise<void> {
  const found = referencesOf(blueprint);
  if (found.length > MAX_TOOL_REFERENCES) {
    throw invalid([...loc, 'tools'], `at most ${MAX_TOOL_REFERENCES} registry tool references`);
  }
  const refs = found.map(({ index, tool }) => ({
    at: [...loc, 'tools', index],
    ref: parseToolReference(tool, [...loc, 'tools', index]),
  }));
  const resolved = await resolveEach(
    workspaceId,
    refs.map(({ ref }) => ref),
    cachedResolve,
  );
  const admit = toolAdmission(blueprint);
  for (const [i, resolution] of resolved.entries()) {
    const { at, ref } = refs[i]!;
    if (!('found' in resolution)) throw invalid(at, missingMessage(ref, resolution));
    const refusal = admit(resolution.found);
    if (refusal?.tooLarge)
      throw payloadTooLarge(`registry tool ${describeToolReference(ref)}: ${refusal.message}`);
    if (refusal) throw invalid(at, `registry tool ${describeToolReference(ref)}: ${refusal.message}`);
  }
}

/**
 * At most this many bytes of tool definitions (as JSON) are expanded into one template (about what a
 * prompt version may hold inline): an answer that carries them twice (`prompt_template` and
 * `llm_kwargs`) beside the template itself stays far below the 6 MB a Lambda answer may be, which 128
 * definitions of 64 KB would not.
 */
export const MAX_EXPANDED_TOOL_BYTES = 350_000;

/**
 * Admits resolved versions into a template's tools in order, or says why one cannot join them: its
 * function name is another tool's of the template already (providers take each name once), or the
 * expanded definitions would pass MAX_EXPANDED_TOOL_BYTES (`tooLarge`).
 */
function toolAdmission(
  blueprint: PromptBlueprint,
): (version: ToolVersionRecord) => { tooLarge: boolean; message: string } | undefined {
  const names = inlineFunctionNames(blueprint);
  let bytes = 0;
  return (version) => {
    const name = version.tool_definition.name;
    if (names.has(name)) {
      return {
        tooLarge: false,
        message: `its function ${name} is already another of the template's tools (each function name is taken once)`,
      };
    }
    const size = storedJsonBytes(version.tool_definition);
    if (bytes + size > MAX_EXPANDED_TOOL_BYTES) {
      return {
        tooLarge: true,
        message: `a template's registry tools are at most ${MAX_EXPANDED_TOOL_BYTES} bytes as JSON, expanded`,
      };
    }
    names.add(name);
    bytes += size;
    return undefined;
  };
}

export interface ExpandedTools {
  blueprint: PromptBlueprint;
  /**
   * The names of the registry tools the references named, expanded or left out (a missing label or
   * version, a repeated function): the cache tags of the read, which a new version of any may change.
   */
  toolNames: string[];
  /** Why a reference was left out, one line each; empty when every one resolved. */
  warnings: string[];
}

/**
 * The blueprint with each registry reference in `tools` replaced by the function tool of the version
 * it resolves to now; a reference that is malformed, no longer resolves, repeats a function name, takes
 * the definitions past MAX_EXPANDED_TOOL_BYTES or comes after the MAX_TOOL_REFERENCES-th is left out and
 * named in `warnings`. A blueprint without references comes back as it is, without a round trip.
 */
export async function expandToolReferences(
  workspaceId: number,
  blueprint: PromptBlueprint,
  /** How a reference is looked up (tests give their own); the cached registry read by default. */
  resolve: ToolResolver = cachedResolve,
): Promise<ExpandedTools> {
  const refs = referencesOf(blueprint);
  if (blueprint.type !== 'chat' || refs.length === 0) return { blueprint, toolNames: [], warnings: [] };
  const parsed = refs.map(({ index, tool }): [number, ToolReference | string] => {
    if (index > (refs[MAX_TOOL_REFERENCES - 1]?.index ?? Number.POSITIVE_INFINITY)) {
      return [
        index,
        `registry tool reference tools[${index}] was left out: more than ${MAX_TOOL_REFERENCES}`,
      ];
    }
    try {
      return [index, parseToolReference(tool, ['prompt_template', 'tools', index])];
    } catch (error) {
      return [index, `registry tool reference tools[${index}] was left out: ${(error as Error).message}`];
    }
  });
  const valid = parsed.flatMap(([, ref]) => (typeof ref === 'string' ? [] : [ref]));
  const resolutions = await resolveEach(workspaceId, valid, resolve);
  let next = 0;
  const admit = toolAdmission(blueprint);
  const expansions = parsed.map(([index, ref]): [number, ToolVersionRecord | string] => {
    if (typeof ref === 'string') return [index, ref];
    const resolution = resolutions[next++]!;
    const why = 'found' in resolution ? admit(resolution.found)?.message : missingMessage(ref, resolution);
    if (why === undefined && 'found' in resolution) return [index, resolution.found];
    return [index, `registry tool ${describeToolReference(ref)} was left out: ${why}`];
  });
  const byIndex = new Map(expansions);
  const tools = (blueprint.tools ?? []).flatMap((tool, index): Tool[] => {
    const expanded = byIndex.get(index);
    if (expanded === undefined) return [tool];
    return typeof expanded === 'string'
      ? []
      : [{ type: 'function', function: { ...expanded.tool_definition } }];
  });
  const warnings = expansions.flatMap(([, expanded]) => (typeof expanded === 'string' ? [expanded] : []));
  // Every tool a reference named, expanded or left out: a new version of any may change the answer.
  const toolNames = [
    ...new Set(
      resolutions.flatMap((resolution) =>
        'found' in resolution ? [resolution.found.tool_name] : resolution.name ? [resolution.name] : [],
      ),
    ),
  ];
  return { blueprint: { ...blueprint, tools }, toolNames, warnings };
}
