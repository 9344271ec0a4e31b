import { describe, expect, it } from 'vitest';
import { withinListBudget } from '#shared/reports/list-budget.ts';

/** The evaluations list's answer budget: the largest bulky fields first, then the oldest runs. */
const item = (id: number, code: string, runs?: { id: number; score_configuration: null }[]) => ({
  id,
  score_configuration: { code, code_language: 'JAVASCRIPT' },
  score: null,
  score_matrix: null,
  tags: ['a'],
  external_ids: [],
  ...(runs ? { runs } : {}),
});
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('withinListBudget', () => {
  it('leaves a page within the budget as it is', () => {
    const page = [item(1, 'x'.repeat(100))];
    expect(withinListBudget(structuredClone(page), 10_000)).toEqual(page);
  });

  it('leaves out the largest fields first, naming them, until the page fits', () => {
    const page = [item(1, 'x'.repeat(5_000)), item(2, 'y'.repeat(3_000)), item(3, 'z'.repeat(100))];

    const kept = withinListBudget(page, 5_000);

    expect(bytes(kept)).toBeLessThanOrEqual(5_000);
    expect(kept[0]).toMatchObject({ score_configuration: null, omitted_fields: ['score_configuration'] });
    expect(kept[1]?.score_configuration?.code).toBe('y'.repeat(3_000));
    expect(kept[2]).not.toHaveProperty('omitted_fields');
  });

  it('then leaves out the oldest runs of the items with the most, counting them', () => {
    const runs = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({ id: from + i, score_configuration: null }));
    const page = [item(1, 'a', runs(100, 300)), item(2, 'b', runs(1000, 10))];

    const kept = withinListBudget(page, 6_000);

    expect(bytes(kept)).toBeLessThanOrEqual(6_000);
    const [first, second] = kept as (ReturnType<typeof item> & { runs_omitted?: number })[];
    expect(first?.runs?.[0]?.id).toBe(100);
    expect((first?.runs?.length ?? 0) + (first?.runs_omitted ?? 0)).toBe(300);
    expect(second?.runs).toHaveLength(10);
    expect(second).not.toHaveProperty('runs_omitted');
  });
});
