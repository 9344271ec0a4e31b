import { invalid, notFound } from '#shared/platform/errors.ts';
import {
  type Found,
  lookupByName,
  readVersion,
  type Selector,
  findHead as sharedFindHead,
  findHeadById as sharedFindHeadById,
} from '#shared/versions/read.ts';
import { promptStore } from './kind.ts';
import type { TemplateHead, VersionRecord } from './records.ts';
import { getTemplateName } from './repository.ts';

/**
 * Finding a template version: by number, label or "latest", by name or id, as stored. Apart from
 * rendering (read.ts: snippets, registry tools, llm_kwargs), so a function that only needs to know which
 * version a log names (log-request, track-request, OTLP ingestion, annotations) bundles none of it.
 */

export type { Selector } from '#shared/versions/read.ts';

export type FoundVersion = Found<TemplateHead, VersionRecord>;

/** The selected version, or a 404 naming what is missing. */
export const readTemplate = (
  workspaceId: number,
  identifier: string,
  select: Selector,
): Promise<FoundVersion> => readVersion(promptStore, workspaceId, identifier, select);

/** What a logged request (or a later link to a prompt) says about the prompt it used. */
export interface LoggedPromptRef {
  prompt_id?: number | null;
  prompt_name?: string | null;
  prompt_version_number?: number | null;
  /** A release label instead of a version number (track-prompt). */
  label?: string | null;
}

/**
 * The version a logged request names (POST /log-request, /track-request, /library-track-prompt): by
 * prompt_id or prompt_name, the given version or label, or the latest. Anything unknown is a 422 by
 * default, the log's body being what is wrong; `onMissing: 'not_found'` answers 404 instead, for a route
 * whose subject is the prompt (linking an existing log to it).
 */
export async function findLoggedPromptVersion(
  workspaceId: number,
  ref: LoggedPromptRef,
  onMissing: 'invalid' | 'not_found' = 'invalid',
): Promise<VersionRecord> {
  // The same finding in a 422 about the body's field, or a 404 about the thing.
  const missing = (field: string, invalidMsg: string, notFoundMsg: string) =>
    onMissing === 'invalid' ? invalid(['body', field], invalidMsg) : notFound(notFoundMsg);
  const unknownId = (id: number) =>
    missing('prompt_id', `unknown prompt template id ${id}`, `Prompt template ${id} not found`);
  const select = { version: ref.prompt_version_number ?? undefined, label: ref.label ?? undefined };
  let name = ref.prompt_name ?? undefined;
  if (ref.prompt_id != null) {
    const named = await getTemplateName(workspaceId, ref.prompt_id);
    if (named === undefined) throw unknownId(ref.prompt_id);
    if (name !== undefined && name !== named) {
      throw invalid(
        ['body', 'prompt_name'],
        `prompt_name does not match the template of prompt_id ${ref.prompt_id}`,
      );
    }
    name = named;
  }
  const result = await lookupByName(promptStore, workspaceId, name ?? '', select);
  if ('found' in result) {
    if (ref.prompt_id != null && result.found.head.id !== ref.prompt_id) throw unknownId(ref.prompt_id);
    return result.found.version;
  }
  switch (result.missing) {
    case 'version':
      throw missing(
        'prompt_version_number',
        `prompt template ${result.head.name} has no version ${select.version}`,
        `Version ${select.version} of prompt template ${result.head.name} not found`,
      );
    case 'label':
      throw missing(
        'label',
        `prompt template ${result.head.name} has no label ${select.label}`,
        `Label ${select.label} of prompt template ${result.head.name} not found`,
      );
    case 'entity':
      if (ref.prompt_id != null) throw unknownId(ref.prompt_id);
      throw missing('prompt_name', `unknown prompt template ${name}`, `Prompt template ${name} not found`);
  }
}

/**
 * The head of a template by name or id (an identifier of digits is tried as an id first). A head
 * exists only once its first version does, so a head found is a template a client may see.
 */
export const findHead = (workspaceId: number, identifier: string): Promise<TemplateHead | undefined> =>
  sharedFindHead(promptStore, workspaceId, identifier);

export const findHeadById = (workspaceId: number, templateId: number): Promise<TemplateHead | undefined> =>
  sharedFindHeadById(promptStore, workspaceId, templateId);
