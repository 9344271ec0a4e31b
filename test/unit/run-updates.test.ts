import { describe, expect, it } from 'vitest';
import {
  channelExecution,
  MAX_PUBLICATION_BYTES,
  RUN_COMPLETE_MESSAGE,
  runCompleteUpdate,
  runUpdatesChannel,
} from '#shared/workflows/engine/updates.ts';

/** The run update's shape and size bound, as the PromptLayer SDK reads it. */
describe('runCompleteUpdate', () => {
  const dataOf = (finalOutput: unknown) => JSON.parse(runCompleteUpdate(finalOutput).data);
  /** A final output whose publication data is exactly `bytes` long. */
  const outputOfDataBytes = (bytes: number) => {
    const overhead = JSON.stringify({ result_code: 'OK', final_output: { out: '' } }).length;
    return { out: 'x'.repeat(bytes - overhead) };
  };

  it('carries the final output inline up to MAX_PUBLICATION_BYTES of data', () => {
    const output = outputOfDataBytes(MAX_PUBLICATION_BYTES);
    expect(runCompleteUpdate(output).message_name).toBe(RUN_COMPLETE_MESSAGE);
    expect(dataOf(output)).toEqual({ result_code: 'OK', final_output: output });
  });

  it('says EXCEEDS_SIZE_LIMIT one byte past it (counted in UTF-8 bytes, not characters)', () => {
    expect(dataOf(outputOfDataBytes(MAX_PUBLICATION_BYTES + 1))).toEqual({
      result_code: 'EXCEEDS_SIZE_LIMIT',
      final_output: null,
    });
    const wide = { out: 'é'.repeat(MAX_PUBLICATION_BYTES / 2) };
    expect(dataOf(wide).result_code).toBe('EXCEEDS_SIZE_LIMIT');
  });

  it('sends null for a run without an output', () => {
    expect(dataOf(undefined)).toEqual({ result_code: 'OK', final_output: null });
  });
});

describe('the run channel', () => {
  it('names one execution, in its canonical form only', () => {
    expect(runUpdatesChannel(42)).toBe('workflow_updates:42');
    expect(channelExecution('workflow_updates:42')).toBe(42);
    for (const other of [
      'workflow_updates:042',
      'workflow_updates:',
      'workflow_updates:4x',
      'updates:42',
      ' workflow_updates:42',
    ])
      expect(channelExecution(other), other).toBeUndefined();
  });
});
