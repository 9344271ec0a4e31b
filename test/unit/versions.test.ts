import { describe, expect, it } from 'vitest';
import { PROMPT_KIND } from '#shared/prompts/kind.ts';
import { entityKeys, HEAD_SK } from '#shared/versions/keys.ts';
import { labelEntry, labelOf, labelVersionId } from '#shared/versions/kind.ts';
import { headComparator, inTimeBounds } from '#shared/versions/list.ts';
import { headListQuerySchema } from '#shared/versions/schemas.ts';
import { WORKFLOW_KIND } from '#shared/workflows/registry.ts';

describe('keys of a versioned kind', () => {
  it('lays out each kind under its own tag, so kinds never share a partition', () => {
    const prompts = entityKeys(PROMPT_KIND);
    const workflows = entityKeys(WORKFLOW_KIND);
    expect(prompts.head(7, 'x')).toEqual({ PK: 'W#7#P#x', SK: HEAD_SK });
    expect(workflows.head(7, 'x')).toEqual({ PK: 'W#7#WF#x', SK: HEAD_SK });
    expect(workflows.version(7, 'x', 12)).toEqual({ PK: 'W#7#WF#x', SK: 'V#0000000012' });
    expect(workflows.labelCopy(7, 'x', 'prod')).toEqual({ PK: 'W#7#WF#x', SK: 'L#prod' });
    expect(prompts.entityId(7, 5)).toEqual({ PK: 'W#7#PID#5', SK: 'PID' });
    expect(workflows.entityId(7, 5)).toEqual({ PK: 'W#7#WFID#5', SK: 'WFID' });
    expect(prompts.labelId(7, 9)).toEqual({ PK: 'W#7#PL#9', SK: 'PL' });
    expect(workflows.labelId(7, 9)).toEqual({ PK: 'W#7#WFL#9', SK: 'WFL' });
    expect(prompts.indexPk(7)).toBe('W#7#PROMPTS');
    expect(workflows.indexPk(7)).toBe('W#7#WORKFLOWS');
  });
});

describe('label entries of a kind', () => {
  it("hold the version id under the kind's attribute", () => {
    const base = { id: 1, version_number: 2, created_at: 3, updated_at: 4 };
    const prompt = labelEntry(PROMPT_KIND, base, 99);
    expect(prompt).toEqual({ ...base, prompt_version_id: 99 });
    expect(labelVersionId(PROMPT_KIND, prompt)).toBe(99);
    expect(labelEntry(WORKFLOW_KIND, base, 98)).toEqual({ ...base, workflow_version_id: 98 });
  });

  it('finds only own labels, whatever their names', () => {
    const labels = Object.create(null);
    labels.constructor = 1;
    expect(labelOf({ labels }, 'constructor')).toBe(1);
    expect(labelOf({ labels: {} }, 'constructor')).toBeUndefined();
    expect(labelOf({ labels: {} }, 'toString')).toBeUndefined();
  });
});

describe('lists of versioned entities', () => {
  const heads = [
    { id: 3, name: 'b', created_at: 10, updated_at: 30 },
    { id: 1, name: 'A', created_at: 20, updated_at: 20 },
    { id: 2, name: 'c', created_at: 20, updated_at: 10 },
  ];
  const ids = (sorted: typeof heads) => sorted.map((head) => head.id);

  it('sorts by each field both ways, ties by id', () => {
    expect(ids([...heads].sort(headComparator('created_at', 'desc')))).toEqual([2, 1, 3]);
    expect(ids([...heads].sort(headComparator('created_at', 'asc')))).toEqual([3, 1, 2]);
    expect(ids([...heads].sort(headComparator('name', 'asc')))).toEqual([1, 3, 2]);
    expect(ids([...heads].sort(headComparator('updated_at', 'desc')))).toEqual([3, 1, 2]);
    expect(ids([...heads].sort(headComparator('id', 'asc')))).toEqual([1, 2, 3]);
  });

  it('keeps time bounds inclusive', () => {
    expect(
      heads.filter((h) => inTimeBounds(h, { created_after: 20, created_before: 20 })).map((h) => h.id),
    ).toEqual([1, 2]);
    expect(heads.filter((h) => inTimeBounds(h, { updated_before: 20 })).map((h) => h.id)).toEqual([1, 2]);
  });

  it('validates the list query: defaults, bounds and pairs', () => {
    const schema = headListQuerySchema({});
    expect(schema.parse({})).toEqual({ page: 1, per_page: 30 });
    for (const bad of [
      { page: '0' },
      { per_page: '0' },
      { per_page: '101' },
      { external_source: 's' },
      { external_id: 'x' },
      { sort_order: 'asc' },
      { sort_by: 'size' },
    ]) {
      expect(schema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(schema.parse({ per_page: '100', sort_by: 'name', sort_order: 'asc' })).toMatchObject({
      per_page: 100,
      sort_by: 'name',
      sort_order: 'asc',
    });
  });
});
