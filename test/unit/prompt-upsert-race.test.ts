import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '#shared/platform/errors.ts';
import { upsertByExternalId } from '#shared/prompts/upsert-by-external-id.ts';

/**
 * Two first PUTs of one mapping under two names: the loser's claim meets the winner's mapping while the
 * winner is still writing its template. The loser must publish to the winner's template once it appears,
 * not answer 409 to a client that did nothing wrong.
 */
const world = vi.hoisted(() => ({
  headAfterReads: 0, // the winner's template appears after this many reads by the loser
  reads: 0,
  published: [] as string[],
}));
vi.mock('#shared/external-ids/external-ids.ts', () => ({
  findExternalIdOwner: async () => 7,
}));
vi.mock('#shared/prompts/lookup.ts', () => ({
  findHeadById: async () => (++world.reads > world.headAfterReads ? { name: 'winner' } : undefined),
}));
vi.mock('#shared/prompts/publish.ts', () => ({
  publishPromptTemplate: async (_workspace: number, body: { prompt_template: { prompt_name: string } }) => {
    const name = body.prompt_template.prompt_name;
    // The first publish is the loser's own (not mapped yet): its claim meets the winner's mapping.
    if (world.published.length === 0 && name === 'loser') {
      world.published.push(name);
      throw new AppError(409, 'external_id_conflict', 'The external id is held by another template.');
    }
    world.published.push(name);
    return { id: 7, prompt_name: name, version_number: 2 };
  },
}));

const mapping = { source: 'crm', external_id: 'race-1' };
const body = { prompt_template: { prompt_name: 'loser' } } as never;

describe('a first PUT that loses the race for its external id', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    world.reads = 0;
    world.published = [];
  });
  afterEach(() => vi.useRealTimers());

  it("publishes to the winner's template once it appears (200), not a 409", async () => {
    // Read 1: before the loser's own publish (no head yet); reads 2-3 after its 409 still find none.
    world.headAfterReads = 3;
    const answer = upsertByExternalId(1, mapping, body);
    await vi.runAllTimersAsync();
    const { created, view } = await answer;
    expect(created).toBe(false);
    expect(view).toMatchObject({ id: 7, prompt_name: 'winner' });
    expect(world.published).toEqual(['loser', 'winner']);
  });

  it('answers the 409 when the winner never writes its template (a crashed publish)', async () => {
    world.headAfterReads = Number.POSITIVE_INFINITY;
    const answer = upsertByExternalId(1, mapping, body).catch((error: unknown) => error);
    await vi.runAllTimersAsync();
    expect(await answer).toMatchObject({ status: 409, code: 'external_id_conflict' });
    expect(world.published).toEqual(['loser']);
  });
});
