import { describe, expect, it } from 'vitest';
import { listDatasetsQuerySchema } from '#shared/datasets/list.ts';
import { EPOCH_MS_THRESHOLD, parseTimestamp } from '#shared/platform/time.ts';
import { listTemplatesQuerySchema } from '#shared/prompts/schemas.ts';
import { parseTimeSpan } from '#shared/request-logs/filters/time.ts';

/** One rule for numeric timestamps everywhere: above 1e11 epoch milliseconds, at or below epoch seconds. */
describe('numeric timestamps', () => {
  it.each([
    ['epoch seconds', 1_705_314_600, '2024-01-15T10:30:00.000Z'],
    ['fractional epoch seconds', 1_705_314_600.25, '2024-01-15T10:30:00.250Z'],
    ['epoch milliseconds', 1_705_314_600_250, '2024-01-15T10:30:00.250Z'],
    ['1e11, the last number read as seconds', EPOCH_MS_THRESHOLD, '5138-11-16T09:46:40.000Z'],
    ['1e11 + 1, the first read as milliseconds', EPOCH_MS_THRESHOLD + 1, '1973-03-03T09:46:40.001Z'],
  ])('reads %s', (_what, value, iso) => {
    expect(new Date(parseTimestamp(value) ?? Number.NaN).toISOString()).toBe(iso);
    expect(new Date(parseTimeSpan(value)?.start ?? Number.NaN).toISOString()).toBe(iso);
  });

  it('names a millisecond with epoch milliseconds and a second with whole epoch seconds (filters)', () => {
    expect(parseTimeSpan(1_705_314_600_250)).toEqual({ start: 1_705_314_600_250, end: 1_705_314_600_251 });
    expect(parseTimeSpan(1_705_314_600)).toEqual({ start: 1_705_314_600_000, end: 1_705_314_601_000 });
  });

  it('refuses numbers past the year 9999 in either unit', () => {
    expect(parseTimestamp(1e16)).toBeUndefined();
    expect(parseTimeSpan(1e16)).toBeUndefined();
  });
});

describe('timestamps in query strings', () => {
  it.each([
    ['GET /prompt-templates', listTemplatesQuerySchema],
    ['GET /api/public/v2/datasets', listDatasetsQuerySchema],
  ])('%s reads ISO, epoch seconds and epoch milliseconds alike', (_route, schema) => {
    for (const text of ['2024-01-15T10:30:00Z', '1705314600', '1705314600000']) {
      expect(schema.parse({ created_after: text }).created_after).toBe(1_705_314_600_000);
    }
    const refused = schema.safeParse({ created_after: 'yesterday' });
    expect(refused.error?.issues[0]?.message).toBe(
      'must be an ISO 8601 date-time, epoch seconds or epoch milliseconds',
    );
  });
});
