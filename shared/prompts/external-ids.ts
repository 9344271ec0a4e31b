import { entityExternalIds } from '#shared/versions/external-ids.ts';
import { promptStore } from './repository.ts';

/** External ids of prompt templates (attach, list and detach): those of every versioned entity kind. */
export const templateExternalIds = entityExternalIds(promptStore);
