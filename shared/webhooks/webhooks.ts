import { AppError, notFound } from '#shared/platform/errors.ts';
import { nextId } from '#shared/platform/ids.ts';
import {
  deleteWebhook,
  getWebhook,
  listWebhooks,
  putWebhook,
  releaseWebhookPlace,
  reserveWebhookPlace,
  rotateWebhookSecret,
  updateWebhook,
  type WebhookChanges,
  type WebhookRecord,
} from './repository.ts';
import { sealHeaders, signingKey } from './secrets.ts';
import { secretText } from './signing.ts';
import type { CreateWebhookInput, UpdateWebhookInput } from './validation.ts';
import { MAX_WEBHOOKS_PER_WORKSPACE } from './validation.ts';
import { toWebhookView } from './views.ts';

/** Registration: create, read, change, delete and rotate a workspace's webhooks. */
export const webhookNotFound = () => notFound('Webhook not found');

export async function requireWebhook(workspaceId: number, id: number): Promise<WebhookRecord> {
  const webhook = await getWebhook(workspaceId, id);
  if (!webhook) throw webhookNotFound();
  return webhook;
}

export async function createWebhook(workspaceId: number, input: CreateWebhookInput, now = Date.now()) {
  // Everything that can fail without writing comes first; the place is taken last before the put.
  const id = await nextId('webhook');
  const sealed = await sealHeaders(workspaceId, id, input.headers);
  const secret = secretText(await signingKey(workspaceId, id, 1));
  if (!(await reserveWebhookPlace(workspaceId))) {
    throw new AppError(
      422,
      'webhook_limit_reached',
      `A workspace can have at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks: delete one first`,
    );
  }
  const record: WebhookRecord = {
    id,
    workspaceId,
    url: input.url,
    eventTypes: input.event_types ?? null,
    description: input.description ?? null,
    isActive: input.is_active,
    ...sealed,
    disabledReason: null,
    secretVersion: 1,
    previousSecretVersion: null,
    rotatedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await putWebhook(record);
  } catch (error) {
    await releaseWebhookPlace(workspaceId);
    throw error;
  }
  return { success: true as const, webhook: toWebhookView(record), secret };
}

export async function listWorkspaceWebhooks(workspaceId: number) {
  return { success: true as const, webhooks: (await listWebhooks(workspaceId)).map(toWebhookView) };
}

export async function getWebhookView(workspaceId: number, id: number) {
  return { success: true as const, webhook: toWebhookView(await requireWebhook(workspaceId, id)) };
}

export async function changeWebhook(workspaceId: number, id: number, input: UpdateWebhookInput) {
  await requireWebhook(workspaceId, id);
  const changes: WebhookChanges = {
    url: input.url,
    eventTypes: input.event_types,
    description: input.description,
    isActive: input.is_active,
  };
  // Turned on again by its owner: the reason it was turned off no longer holds.
  if (input.is_active === true) changes.disabledReason = null;
  if (input.headers !== undefined) Object.assign(changes, await sealHeaders(workspaceId, id, input.headers));
  const updated = await updateWebhook(workspaceId, id, changes);
  if (!updated) throw webhookNotFound();
  return { success: true as const, webhook: toWebhookView(updated) };
}

export async function removeWebhook(workspaceId: number, id: number) {
  if (!(await deleteWebhook(workspaceId, id))) throw webhookNotFound();
  return { success: true as const };
}

export async function rotateSecret(workspaceId: number, id: number) {
  const rotated = await rotateWebhookSecret(workspaceId, id);
  if (!rotated) throw webhookNotFound();
  const secret = secretText(await signingKey(workspaceId, id, rotated.secretVersion));
  return { success: true as const, webhook: toWebhookView(rotated), secret };
}
