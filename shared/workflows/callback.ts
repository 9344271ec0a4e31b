/**
 * CONTRACT STUB (issue 9): implemented by the callbacks part. A run started with `callback_url` is
 * answered 202 with the secret its callback is signed with; when the run finishes, the engine hands the
 * result to `sendRunCallback`, which delivers `{workflow_version_execution_id, final_output, result_code}`
 * through the webhook delivery pipeline (guarded client, Standard Webhooks signature, retries).
 */
export interface RunCallback {
  workspaceId: number;
  executionId: number;
  url: string;
  finalOutput: unknown;
}

/** The signing secret of one run's callback (`whsec_...`), derived, never stored. */
export async function callbackSecret(_workspaceId: number, _executionId: number): Promise<string> {
  throw new Error('not implemented');
}

export async function sendRunCallback(_callback: RunCallback): Promise<void> {
  throw new Error('not implemented');
}
