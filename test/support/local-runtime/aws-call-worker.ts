import type { SQSEvent } from 'aws-lambda';
import { type AwsCall, awsCall, type CallOutcome } from './aws-calls.ts';

/** Outcomes of the fixture worker's calls, by call, for the test to read (shared through globalThis). */
const OUTCOMES = Symbol.for('promptops.test.workerOutcomes');
const shared = globalThis as { [OUTCOMES]?: Map<string, CallOutcome> };
shared[OUTCOMES] ??= new Map();
export const workerOutcomes: Map<string, CallOutcome> = shared[OUTCOMES];

/** Fixture worker: each message `{call}` makes that AWS call; its outcome is recorded, never retried. */
export async function handler(event: SQSEvent) {
  for (const record of event.Records) {
    const { call } = JSON.parse(record.body) as { call: AwsCall | 'none' };
    if (call !== 'none') workerOutcomes.set(call, await awsCall(call));
  }
  return { batchItemFailures: [] };
}
