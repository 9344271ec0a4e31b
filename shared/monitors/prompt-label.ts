import type { Dimension } from '#shared/analytics/facts.ts';
import { labelOf } from '#shared/prompts/records.ts';
import { getHead } from '#shared/prompts/repository.ts';

/**
 * A monitor filter on a prompt's release label (`{dimension: "prompt_label", value: "support-bot:prod"}`):
 * the rollups know versions, not labels, so each evaluation reads where the label points now and
 * filters on that `prompt_version`. A label moved to another version is watched there from the next
 * evaluation on.
 */
export const PROMPT_LABEL_DIMENSION = 'prompt_label';
const SEPARATOR = ':';

export interface PromptLabelRef {
  promptName: string;
  label: string;
}

/**
 * `<prompt name>:<label>`, split at the last colon (a prompt name may hold colons, a watched label may
 * not); undefined when either side is empty.
 */
export function parsePromptLabel(value: string): PromptLabelRef | undefined {
  const at = value.lastIndexOf(SEPARATOR);
  if (at <= 0 || at === value.length - 1) return undefined;
  return { promptName: value.slice(0, at), label: value.slice(at + 1) };
}

/**
 * The rollup filter a prompt_label filter stands for now: `prompt_version` `<name>@<version>` of the
 * version the label points at (one GetItem of the template's head), or undefined when the prompt or
 * its label does not exist (any more).
 */
export async function resolvePromptLabel(
  workspaceId: number,
  value: string,
): Promise<{ dimension: Dimension; value: string } | undefined> {
  const ref = parsePromptLabel(value);
  if (!ref) return undefined;
  const head = await getHead(workspaceId, ref.promptName);
  const entry = head && labelOf(head, ref.label);
  return entry && { dimension: 'prompt_version', value: `${head.name}@${entry.version_number}` };
}
