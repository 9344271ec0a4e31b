/**
 * Snippets: templates referenced inline from the text of other templates and expanded on read (and
 * checked on publish). Pure: templates are fetched through a caller-supplied loader, one batched call
 * per nesting level, so a template with snippets three levels deep costs three round trips.
 *
 * Reference grammar (as docs/prompts.md states it):
 *
 *   reference = "@@@" name [ "@" qualifier ] "@@@"
 *   qualifier = "version_number:" positive-integer | "label:" name
 *   name      = characters other than "@" and line breaks, not starting or ending with whitespace
 *               (so spaces, dashes, dots and slashes are fine)
 *
 * Text that does not match the grammar (a lone "@@@", "@@@@@@", "@@@a@other:b@@@") is plain text and
 * stays as it is. A reference whose qualifier value is bad ("version_number:abc", "version_number:0",
 * an empty label) is a 422: the author clearly meant a reference and would otherwise ship it verbatim.
 *
 * Only completion templates can be snippets; a snippet's text is the concatenation of its text blocks.
 */
import type { ErrorDetail } from '#shared/platform/errors.ts';
import { invalid } from '#shared/platform/errors.ts';
import { ILL_FORMED_UNICODE } from '#shared/platform/schemas.ts';
import type { CompletionBlueprint, PromptBlueprint } from '#shared/prompts/llm-kwargs/blueprint.ts';

/** How deep snippets may nest; a template's own references are level 1. */
export const MAX_SNIPPET_DEPTH = 10;

export interface SnippetRef {
  name: string;
  version?: number;
  label?: string;
  /** The literal, e.g. '@@@intro@label:prod@@@'. */
  raw: string;
}

export interface ResolvedSnippet {
  prompt_name: string;
  version: number;
  /** The label the loader resolved it through, if any. */
  label: string | null;
  /** Any template comes back; resolution rejects chat templates. */
  blueprint: PromptBlueprint;
}

/** One entry of `snippets` in the API: a reference and the version it resolved to. */
export interface SnippetUse {
  prompt_name: string;
  version: number;
  /** The label the reference named, null when it named a version or the latest. */
  label: string | null;
}

/** Loads every reference of one level in ONE batched call; undefined (or no entry) for a ref that does not exist. */
export type SnippetLoader = (refs: SnippetRef[]) => Promise<Map<string, ResolvedSnippet | undefined>>;

type Loc = ErrorDetail['loc'];

export interface ResolveOptions {
  /** Where a 422 points; defaults to the published blueprint. */
  loc?: Loc;
  /**
   * Name of the template being published. A reference chain that reaches it without a version number
   * (latest, or a label, which the publish may move) is a cycle: the new version becomes what it means.
   * A pinned version of it is immutable and resolves like any other snippet.
   */
  selfName?: string;
}

const DEFAULT_LOC: Loc = ['body', 'prompt_version', 'prompt_template'];

const NAME = String.raw`[^@\s](?:[^@\r\n]*[^@\s])?`;
const REFERENCE = String.raw`@@@(${NAME})(?:@(version_number|label):([^@\r\n]*))?@@@`;
/** A fresh global regex per use: the pattern is used re-entrantly while expanding. */
const references = () => new RegExp(REFERENCE, 'g');

/** References in the text blocks of a blueprint, unique by `raw`, in order of appearance. */
export function findSnippetRefs(blueprint: PromptBlueprint, opts: { loc?: Loc } = {}): SnippetRef[] {
  return refsIn(
    textBlocks(blueprint).map((block) => block.text),
    opts.loc ?? DEFAULT_LOC,
  );
}

/**
 * Expands every reference in `blueprint` (recursively) and lists the snippets used, nested ones
 * included, each (name, version, label) once, and the blueprint's own references as resolved. The input is not modified; the loader is not called when
 * there is nothing to load. 422 on an unknown snippet, a chat template used as one, a cycle, or nesting
 * deeper than MAX_SNIPPET_DEPTH.
 */
export async function resolveSnippets(
  blueprint: PromptBlueprint,
  load: SnippetLoader,
  opts: ResolveOptions = {},
): Promise<{ blueprint: PromptBlueprint; snippets: SnippetUse[]; references: SnippetUse[] }> {
  const loc = opts.loc ?? DEFAULT_LOC;
  const rootRefs = findSnippetRefs(blueprint, { loc });
  const nodes = await loadLevels(rootRefs, load, loc, opts.selfName);

  // raw -> expanded text and how many levels of snippets it spans (itself included).
  const expanded = new Map<string, { text: string; height: number }>();
  const expand = (raw: string, stack: Node[]): { text: string; height: number } => {
    const node = nodes.get(raw)!;
    const path = () => [...stack, node].map((seen) => seen.snippet.prompt_name);
    const done = expanded.get(raw);
    // Loading stops at the limit by shortest path; a longer path to an expanded snippet is caught here.
    if (done && stack.length + done.height > MAX_SNIPPET_DEPTH) throw tooDeep(loc, [...path(), '…']);
    if (done) return done;
    const start = stack.findIndex((seen) => identity(seen.snippet) === identity(node.snippet));
    if (start >= 0) throw invalid(loc, `snippet cycle: ${path().slice(start).join(' → ')}`);
    if (stack.length >= MAX_SNIPPET_DEPTH) throw tooDeep(loc, path());

    stack.push(node);
    let height = 1;
    const text = node.text.replace(references(), (child) => {
      const inner = expand(child, stack);
      height = Math.max(height, inner.height + 1);
      return inner.text;
    });
    stack.pop();
    const result = { text, height };
    expanded.set(raw, result);
    return result;
  };

  const resolved = structuredClone(blueprint);
  for (const block of textBlocks(resolved)) {
    block.text = block.text.replace(references(), (raw) => expand(raw, []).text);
  }

  const useOf = ({ ref, snippet }: Node): SnippetUse => ({
    prompt_name: snippet.prompt_name,
    version: snippet.version,
    label: ref.label ?? null,
  });
  const snippets = new Map<string, SnippetUse>();
  for (const node of nodes.values()) {
    const use = useOf(node);
    snippets.set(JSON.stringify(use), use);
  }
  // The template's own references (not nested ones), as resolved: what snippet usage indexes.
  const own = rootRefs.map((ref) => useOf(nodes.get(ref.raw)!));
  return { blueprint: resolved, snippets: [...snippets.values()], references: own };
}

interface Node {
  ref: SnippetRef;
  snippet: ResolvedSnippet;
  /** The snippet's own text, references not yet expanded. */
  text: string;
}

/**
 * Breadth-first: each level's new references in one loader call. A reference already loaded (at this
 * or an earlier level) is not loaded again, so the walk ends even on a cycle, which expansion reports.
 */
async function loadLevels(
  rootRefs: SnippetRef[],
  load: SnippetLoader,
  loc: Loc,
  selfName: string | undefined,
): Promise<Map<string, Node>> {
  const nodes = new Map<string, Node>();
  // raw -> raw of the snippet that first referenced it (undefined: the template itself), for messages.
  const parents = new Map<string, string | undefined>(rootRefs.map((ref) => [ref.raw, undefined]));
  const chain = (ref: SnippetRef): string[] => {
    const parent = parents.get(ref.raw);
    const above = parent === undefined ? [] : chain(nodes.get(parent)!.ref);
    return [...above, ref.name];
  };

  let level = rootRefs;
  for (let depth = 1; level.length > 0; depth++) {
    if (depth > MAX_SNIPPET_DEPTH) {
      throw tooDeep(loc, chain(level[0]!));
    }
    const self = level.find((ref) => ref.name === selfName && ref.version === undefined);
    if (self) throw invalid(loc, `snippet cycle: ${[selfName, ...chain(self)].join(' → ')}`);

    const loaded = await load(level);
    const next: SnippetRef[] = [];
    for (const ref of level) {
      const snippet = loaded.get(ref.raw);
      if (!snippet) throw invalid(loc, `unknown snippet ${describe(ref)}`);
      if (snippet.blueprint.type !== 'completion') {
        throw invalid(
          loc,
          `snippet ${describe(ref)} is a chat template; only completion templates can be snippets`,
        );
      }
      const text = snippetText(snippet.blueprint);
      nodes.set(ref.raw, { ref, snippet, text });
      for (const child of refsIn([text], loc)) {
        if (parents.has(child.raw)) continue;
        parents.set(child.raw, ref.raw);
        next.push(child);
      }
    }
    level = next;
  }
  return nodes;
}

function refsIn(texts: string[], loc: Loc): SnippetRef[] {
  const refs = new Map<string, SnippetRef>();
  for (const text of texts) {
    for (const match of text.matchAll(references())) {
      if (!refs.has(match[0])) refs.set(match[0], toRef(match, loc));
    }
  }
  return [...refs.values()];
}

function toRef(match: RegExpMatchArray, loc: Loc): SnippetRef {
  const [raw, name = '', qualifier, value = ''] = match;
  // Names become keys: a lone surrogate would reach the template named with U+FFFD in its place.
  if (!raw.isWellFormed()) throw invalid(loc, `malformed snippet reference: the name ${ILL_FORMED_UNICODE}`);
  if (qualifier === 'version_number') {
    if (!/^[1-9]\d*$/.test(value) || !Number.isSafeInteger(Number(value))) {
      throw invalid(loc, `malformed snippet reference ${raw}: version_number must be a positive integer`);
    }
    return { name, version: Number(value), raw };
  }
  if (qualifier === 'label') {
    if (!new RegExp(`^${NAME}$`).test(value)) {
      throw invalid(loc, `malformed snippet reference ${raw}: the label is empty or padded with spaces`);
    }
    return { name, label: value, raw };
  }
  return { name, raw };
}

/** The text blocks a reference can live in: message content (chat) or content (completion). */
function textBlocks(blueprint: PromptBlueprint): { text: string }[] {
  const blocks =
    blueprint.type === 'chat'
      ? blueprint.messages.flatMap((message) => message.content ?? [])
      : blueprint.content;
  return blocks.filter(
    (block): block is typeof block & { text: string } =>
      block.type === 'text' && typeof block.text === 'string',
  );
}

function snippetText(blueprint: CompletionBlueprint): string {
  return textBlocks(blueprint)
    .map((block) => block.text)
    .join('');
}

const identity = (snippet: ResolvedSnippet) => `${snippet.prompt_name}@${snippet.version}`;

function describe(ref: SnippetRef): string {
  if (ref.version !== undefined) return `"${ref.name}" (version ${ref.version})`;
  if (ref.label !== undefined) return `"${ref.name}" (label ${ref.label})`;
  return `"${ref.name}"`;
}

function tooDeep(loc: Loc, names: string[]) {
  return invalid(loc, `snippets nest deeper than ${MAX_SNIPPET_DEPTH} levels: ${names.join(' → ')}`);
}
