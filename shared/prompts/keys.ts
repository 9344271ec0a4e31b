import { entityKeys, HEAD_SK, VERSION_PREFIX, versionSk } from '#shared/versions/keys.ts';
import { PROMPT_KIND } from './kind.ts';

/**
 * Table keys of the prompt registry: the shared layout of versioned entities (shared/versions/keys.ts)
 * under the tag `P` (access patterns in docs/prompts.md):
 *
 *   W#<ws>#P#<name>  ~HEAD            id, name, tags, folder_id, labels (map), has_external_ids
 *   W#<ws>#P#<name>  V#0000000001 ... one item per version
 *   W#<ws>#P#<name>  L#<label>        a copy of the version the label was last moved to
 *   W#<ws>#PID#<id>  PID              template id -> name
 *   W#<ws>#PL#<id>   PL               label id -> (prompt_name, label)
 *   GSI1 W#<ws>#PROMPTS               every template head, in creation order
 */
export { HEAD_SK, VERSION_PREFIX, versionSk };

const PROMPT_KEYS = entityKeys(PROMPT_KIND);
export const templatePk = PROMPT_KEYS.pk;
export const headKey = PROMPT_KEYS.head;
export const versionKey = PROMPT_KEYS.version;
