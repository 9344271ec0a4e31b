import { listExternalIds } from '#shared/external-ids/external-ids.ts';
import { notFound } from '#shared/platform/errors.ts';
import { findHead, readVersion, type Selector } from '#shared/versions/read.ts';
import { type ToolHead, toolStore } from './registry.ts';
import { toToolView } from './views.ts';

/**
 * GET /api/public/v2/tool-registry/{identifier}: a version (by number, label, or the latest) with the
 * tool's labels. One round trip for the version (two by id, the first once per container); one more
 * for the latest version number when another was asked for, and one for the external ids when there
 * are any.
 */
export async function getTool(workspaceId: number, identifier: string, select: Selector) {
  const { head, version } = await readVersion(toolStore, workspaceId, identifier, select);
  const pinned = select.version !== undefined || select.label !== undefined;
  const [latest, externalIds] = await Promise.all([
    pinned ? toolStore.getLatestVersion(workspaceId, head.name) : version,
    head.has_external_ids ? listExternalIds(workspaceId, 'tool', head.id) : [],
  ]);
  return toToolView(workspaceId, head, version, latest?.number ?? version.number, externalIds);
}

/** A tool of the workspace by id or name (digits are tried as an id first), or a 404. */
export async function requireToolHead(workspaceId: number, identifier: string): Promise<ToolHead> {
  const head = await findHead(toolStore, workspaceId, identifier);
  if (!head) throw notFound(`Tool ${identifier} not found`);
  return head;
}
