import type { CallbackResultCode } from '../callback.ts';
import { executionResults, resolveValues } from './results.ts';
import { readExecution } from './store.ts';

/**
 * A run's realtime update, as the PromptLayer SDK's `runWorkflow` waits for it: on the channel
 * `workflow_updates:<execution id>`, one publication `{message_name: "SET_WORKFLOW_COMPLETE", data}`
 * whose `data` is a JSON string `{result_code, final_output}`. `final_output` is what the results route
 * answers for the run's own `return_all_outputs`; past MAX_PUBLICATION_BYTES it is left out
 * (`EXCEEDS_SIZE_LIMIT`) and the SDK fetches the results itself.
 *
 * The engine hands every finished run to the publisher port; the deployment's adapter delivers it to
 * the channel's subscribers (the local runtime's WebSocket endpoint; none in AWS yet, see
 * docs/deployment.md). A subscriber that comes after the run finished asks `finishedRunUpdate`.
 */
export const RUN_COMPLETE_MESSAGE = 'SET_WORKFLOW_COMPLETE';

/**
 * A publication carries at most this much `data`: well within API Gateway's 128 KB WebSocket message,
 * so one bound holds wherever the updates are served.
 */
export const MAX_PUBLICATION_BYTES = 64 * 1024;

const CHANNEL_PREFIX = 'workflow_updates:';
/** `workflow_updates:<execution id>`, the id in its canonical form. */
export const CHANNEL_PATTERN = /^workflow_updates:([1-9]\d{0,15})$/;

export interface RunUpdate {
  message_name: typeof RUN_COMPLETE_MESSAGE;
  /** JSON `{result_code, final_output}`, a string as the SDK parses it. */
  data: string;
}

export const runUpdatesChannel = (executionId: number) => `${CHANNEL_PREFIX}${executionId}`;

/** The execution a channel is about, or undefined when the name is not `workflow_updates:<id>`. */
export function channelExecution(channel: string): number | undefined {
  const match = CHANNEL_PATTERN.exec(channel);
  return match ? Number(match[1]) : undefined;
}

export function runCompleteUpdate(finalOutput: unknown): RunUpdate {
  const data = (result_code: CallbackResultCode, final_output: unknown) =>
    JSON.stringify({ result_code, final_output });
  const full = data('OK', finalOutput ?? null);
  return {
    message_name: RUN_COMPLETE_MESSAGE,
    data: Buffer.byteLength(full, 'utf8') <= MAX_PUBLICATION_BYTES ? full : data('EXCEEDS_SIZE_LIMIT', null),
  };
}

/** Delivers updates to the subscribers of a channel (the deployment's adapter). */
export interface RunUpdatesPublisher {
  publish(workspaceId: number, channel: string, update: RunUpdate): Promise<void>;
}

let publisher: RunUpdatesPublisher | undefined;

/** Chosen at start-up by the runtime that serves subscriptions; without one, updates go nowhere. */
export function setRunUpdatesPublisher(adapter: RunUpdatesPublisher | undefined): void {
  publisher = adapter;
}

/** Publishes a finished run's update (called again for the same run after a crash: subscribers dedupe). */
export async function publishRunComplete(
  workspaceId: number,
  executionId: number,
  finalOutput: unknown,
): Promise<void> {
  await publisher?.publish(workspaceId, runUpdatesChannel(executionId), runCompleteUpdate(finalOutput));
}

/** The update of a run of the workspace that already finished; undefined while it runs or when unknown. */
export async function finishedRunUpdate(
  workspaceId: number,
  executionId: number,
): Promise<RunUpdate | undefined> {
  const execution = await readExecution(workspaceId, executionId);
  if (execution?.meta.status !== 'COMPLETE') return undefined;
  const nodes = await resolveValues(execution.nodes);
  return runCompleteUpdate(executionResults(nodes, execution.meta.returnAllOutputs).body);
}
