import { entityExternalIds } from '#shared/versions/external-ids.ts';
import { workflowStore } from './registry.ts';

/** External ids of workflows (attach, list and detach): those of every versioned entity kind. */
export const workflowExternalIds = entityExternalIds(workflowStore);
