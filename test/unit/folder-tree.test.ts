import { describe, expect, it } from 'vitest';
import { type FolderRecord, FolderTree } from '#shared/folders/tree.ts';

/** The folder tree's derived answers (paths, descendants, resolution), from folders as stored. */
const folder = (id: number, name: string, parent_id: number | null): FolderRecord => ({
  id,
  name,
  parent_id,
  revision: 0,
  created_at: id,
  updated_at: id,
  has_external_ids: false,
});

//  1 Team ── 2 Evals ── 3 Nightly
//         └─ 4 Drafts
//  5 Other;  6 Orphan (its parent 99 is gone)
const tree = new FolderTree([
  folder(1, 'Team', null),
  folder(2, 'Evals', 1),
  folder(3, 'Nightly', 2),
  folder(4, 'Drafts', 1),
  folder(5, 'Other', null),
  folder(6, 'Orphan', 99),
]);

describe('FolderTree', () => {
  it('gives each folder its ancestors, and an entity in a folder the path down to it', () => {
    expect(tree.ancestors(1)).toEqual([]);
    expect(tree.ancestors(3)).toEqual([
      { id: 1, name: 'Team' },
      { id: 2, name: 'Evals' },
    ]);
    expect(tree.pathTo(3).map((step) => step.name)).toEqual(['Team', 'Evals', 'Nightly']);
    expect(tree.pathTo(null)).toEqual([]);
  });

  it('puts a folder whose parent is gone at the root', () => {
    expect(tree.parentOf(tree.get(6)!)).toBeNull();
    expect(tree.children(null).map((f) => f.id)).toEqual([1, 5, 6]);
    expect(tree.ancestors(6)).toEqual([]);
  });

  it.each([
    [3, 1, true],
    [2, 2, true],
    [1, 3, false],
    [5, 1, false],
    [4, 2, false],
  ])('knows whether %i lies within %i', (candidate, of, expected) => {
    expect(tree.isWithin(candidate, of)).toBe(expected);
  });

  it('orders a subtree deepest first, the order it can be deleted in', () => {
    expect(tree.subtree(1).map((f) => f.id)).toEqual([3, 2, 4, 1]);
    expect(tree.subtree(42)).toEqual([]);
  });

  it('resolves a path of names from the root', () => {
    expect(tree.resolve(['Team', 'Evals', 'Nightly'])?.id).toBe(3);
    expect(tree.resolve(['Team', 'Nightly'])).toBeUndefined();
    expect(tree.childNamed(1, 'Drafts')?.id).toBe(4);
  });

  it('stops at a cycle left by two racing moves', () => {
    const cycle = new FolderTree([folder(1, 'A', 2), folder(2, 'B', 1)]);
    expect(cycle.ancestors(1)).toEqual([{ id: 2, name: 'B' }]);
    expect(cycle.isWithin(1, 2)).toBe(true);
    expect(cycle.subtree(1).map((f) => f.id)).toEqual([2, 1]);
  });
});
