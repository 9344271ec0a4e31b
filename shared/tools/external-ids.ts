import { entityExternalIds } from '#shared/versions/external-ids.ts';
import { toolStore } from './registry.ts';

/** External ids of registry tools (attach, list and detach): those of every versioned entity kind. */
export const toolExternalIds = entityExternalIds(toolStore);
