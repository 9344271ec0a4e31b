import { describe, expect, it } from 'vitest';
import { CALLBACK_MAX_BODY_BYTES, callbackBody, callbackDeliveryId } from '#shared/workflows/callback.ts';

/** The callback body: written once like a webhook body, and without the result past the size limit. */
describe('callbackBody', () => {
  it('is sorted-key JSON with non-ASCII escaped, result_code OK', () => {
    expect(callbackBody(7, { b: 'é', a: [1, null] })).toBe(
      '{"final_output": {"a": [1, null], "b": "\\u00e9"}, "result_code": "OK", "workflow_version_execution_id": 7}',
    );
    expect(callbackBody(7, undefined)).toContain('"final_output": null');
  });

  it('keeps a result that fits exactly, drops one a byte over', () => {
    const overhead = callbackBody(7, '').length;
    const fits = callbackBody(7, 'x'.repeat(CALLBACK_MAX_BODY_BYTES - overhead));
    expect(fits.length).toBe(CALLBACK_MAX_BODY_BYTES);
    expect(JSON.parse(fits).result_code).toBe('OK');
    expect(JSON.parse(callbackBody(7, 'x'.repeat(CALLBACK_MAX_BODY_BYTES - overhead + 1)))).toEqual({
      workflow_version_execution_id: 7,
      final_output: null,
      result_code: 'EXCEEDS_SIZE_LIMIT',
    });
  });

  it('has one delivery id per run', () => {
    expect(callbackDeliveryId(1, 2)).toBe(callbackDeliveryId(1, 2));
    expect(callbackDeliveryId(1, 2)).not.toBe(callbackDeliveryId(1, 3));
    expect(callbackDeliveryId(1, 2)).not.toBe(callbackDeliveryId(2, 2));
    expect(callbackDeliveryId(1, 2)).toMatch(/^msg_[0-9a-f]{32}$/);
  });
});
