import { deriveKey, seal, unseal } from '#shared/platform/master-key.ts';
import type { WebhookRecord } from './repository.ts';

/**
 * A webhook's signing secrets are derived, never stored: HMAC-SHA256(master key,
 * `webhook:<ws>:<webhookId>:<secretVersion>`). Rotation bumps the version; the previous version keeps
 * signing beside the new one for WEBHOOK_SECRET_OVERLAP_SECONDS (24 h unless set, read when signing).
 */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 24 * 3600;

export function secretOverlapMs(): number {
  const configured = Number(process.env.WEBHOOK_SECRET_OVERLAP_SECONDS);
  return (
    (Number.isFinite(configured) && configured >= 0 ? configured : DEFAULT_SECRET_OVERLAP_SECONDS) * 1000
  );
}

export const signingKey = (workspaceId: number, webhookId: number, version: number) =>
  deriveKey(`webhook:${workspaceId}:${webhookId}:${version}`);

/**
 * The key a workflow run's callback is signed with: HMAC-SHA256(master key,
 * `run-callback:<ws>:<executionId>`), one per run, never stored, never rotated.
 */
export const runCallbackSigningKey = (workspaceId: number, executionId: number) =>
  deriveKey(`run-callback:${workspaceId}:${executionId}`);

/** Until when the previous secret signs too (epoch ms), or null when there is none. */
export function previousSecretExpiresAt(webhook: WebhookRecord): number | null {
  if (webhook.previousSecretVersion == null || webhook.rotatedAt == null) return null;
  return webhook.rotatedAt + secretOverlapMs();
}

/** The keys an attempt signs with: the current one, then the previous one while it still signs. */
export async function signingKeys(webhook: WebhookRecord, now = Date.now()): Promise<Buffer[]> {
  const keys = [await signingKey(webhook.workspaceId, webhook.id, webhook.secretVersion)];
  const expires = previousSecretExpiresAt(webhook);
  if (expires !== null && now < expires && webhook.previousSecretVersion != null) {
    keys.push(await signingKey(webhook.workspaceId, webhook.id, webhook.previousSecretVersion));
  }
  return keys;
}

const headersPurpose = (workspaceId: number, webhookId: number) =>
  `webhook-headers:${workspaceId}:${webhookId}`;

/** Custom headers are credentials more often than not: stored sealed with a key of the master key. */
export async function sealHeaders(
  workspaceId: number,
  webhookId: number,
  headers: Record<string, string> | undefined,
): Promise<{ headersSealed: string | null; headerNames: string[] }> {
  const names = Object.keys(headers ?? {});
  if (!headers || names.length === 0) return { headersSealed: null, headerNames: [] };
  return {
    headersSealed: await seal(headersPurpose(workspaceId, webhookId), JSON.stringify(headers)),
    headerNames: names,
  };
}

export async function unsealHeaders(webhook: WebhookRecord): Promise<Record<string, string>> {
  if (!webhook.headersSealed) return {};
  return JSON.parse(await unseal(headersPurpose(webhook.workspaceId, webhook.id), webhook.headersSealed));
}
