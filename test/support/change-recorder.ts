import type { DynamoDBBatchResponse } from 'aws-lambda';
import type { ShardStreamEvent } from '#shared/platform/change-feed.ts';

/**
 * A change consumer for tests of the local change feed: it records every event it receives and fails
 * as told. State lives on globalThis: the runtime and the test may load this file as two modules.
 */
export interface RecorderState {
  events: ShardStreamEvent[];
  /** Throw on this many deliveries from now. */
  throwTimes: number;
  /** Report the change at this index of the next delivery as failed (once). */
  failItemAt?: number;
}

const holder = globalThis as { changeRecorder?: RecorderState };
holder.changeRecorder ??= { events: [], throwTimes: 0 };
export const recorder: RecorderState = holder.changeRecorder;

export async function handler(event: ShardStreamEvent): Promise<DynamoDBBatchResponse> {
  recorder.events.push(structuredClone(event));
  if (recorder.throwTimes > 0) {
    recorder.throwTimes--;
    throw new Error('Injected consumer failure (test)');
  }
  const at = recorder.failItemAt;
  if (at !== undefined && at < event.Records.length) {
    recorder.failItemAt = undefined;
    return { batchItemFailures: [{ itemIdentifier: event.Records[at]!.dynamodb!.SequenceNumber! }] };
  }
  return { batchItemFailures: [] };
}
