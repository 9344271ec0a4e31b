import { logger } from '#shared/platform/logger.ts';
import { checkOutboundUrl } from '#shared/platform/outbound-http.ts';
import { enqueueDelivery, stableDeliveryId } from '#shared/webhooks/deliveries.ts';
import {
  createDelivery,
  getDeliveryAt,
  pendingDelivery,
  type RunCallbackDeliveryRecord,
} from '#shared/webhooks/repository.ts';
import { runCallbackSigningKey } from '#shared/webhooks/secrets.ts';
import { pythonJson, secretText } from '#shared/webhooks/signing.ts';

/**
 * A workflow run started with `callback_url` is answered 202 with the secret its callback is signed
 * with; when the run finishes, the engine hands the result to `sendRunCallback`, which makes it a
 * delivery on the webhook delivery queue: `{workflow_version_execution_id, final_output, result_code}`
 * POSTed through the guarded outbound client, signed (Standard Webhooks, with the run's secret) and
 * retried exactly as a webhook delivery is. The delivery id is derived from the run, so a run's
 * callback is enqueued once however often the engine asks.
 */
export interface RunCallback {
  workspaceId: number;
  executionId: number;
  url: string;
  /** What the results endpoint answers for the run, with the run's own `return_all_outputs`. */
  finalOutput: unknown;
}

/** A body over this many bytes carries no `final_output` (`EXCEEDS_SIZE_LIMIT`): fetch the results. */
export const CALLBACK_MAX_BODY_BYTES = 256 * 1024;

export type CallbackResultCode = 'OK' | 'EXCEEDS_SIZE_LIMIT';

/** The signing secret of one run's callback (`whsec_...`), derived, never stored. */
export async function callbackSecret(workspaceId: number, executionId: number): Promise<string> {
  return secretText(await runCallbackSigningKey(workspaceId, executionId));
}

/** The body every attempt sends, written once (sorted keys, as webhook bodies are). */
export function callbackBody(executionId: number, finalOutput: unknown): string {
  const body = (final_output: unknown, result_code: CallbackResultCode) =>
    pythonJson({ workflow_version_execution_id: executionId, final_output, result_code });
  // Always there: a run without an output answers `null`.
  const full = body(finalOutput ?? null, 'OK');
  return Buffer.byteLength(full, 'utf8') <= CALLBACK_MAX_BODY_BYTES ? full : body(null, 'EXCEEDS_SIZE_LIMIT');
}

export const callbackDeliveryId = (workspaceId: number, executionId: number) =>
  stableDeliveryId(`run-callback:${workspaceId}:${executionId}`);

/**
 * Puts the run's callback on the delivery queue, once: a second call for the same run (a redelivered
 * completion) finds the delivery already made and sends nothing, unless it was never attempted (its
 * message may have been lost). A URL the outbound client refuses outright makes a delivery that is
 * failed at once, without a request.
 */
export async function sendRunCallback(callback: RunCallback, now = Date.now()): Promise<void> {
  const delivery: RunCallbackDeliveryRecord = {
    ...pendingDelivery(
      callbackDeliveryId(callback.workspaceId, callback.executionId),
      callback.workspaceId,
      callbackBody(callback.executionId, callback.finalOutput),
      now,
    ),
    executionId: callback.executionId,
    url: callback.url,
  };
  const checked = checkOutboundUrl(callback.url);
  if (checked.ok) {
    await enqueueDelivery(delivery);
    return;
  }
  const { created } = await createDelivery({
    ...delivery,
    status: 'failed',
    lastError: `refused: ${checked.reason}`,
    nextAttemptAt: null,
  });
  if (created)
    logger.warn('Run callback not sent: the outbound client refuses its URL', {
      executionId: callback.executionId,
    });
}

/** The run's callback delivery (status, attempts, last answer), or undefined when it has none. */
export async function getRunCallbackDelivery(
  workspaceId: number,
  executionId: number,
): Promise<RunCallbackDeliveryRecord | undefined> {
  const id = callbackDeliveryId(workspaceId, executionId);
  return (await getDeliveryAt({ workspaceId, executionId, id })) as RunCallbackDeliveryRecord | undefined;
}
