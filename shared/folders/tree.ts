/**
 * A workspace's folders as read in one Query, and what is derived from them: paths, children,
 * descendants, path resolution. Pure: no table access.
 */
export interface FolderRecord {
  id: number;
  name: string;
  parent_id: number | null;
  /** Moves with every change of name or parent: the condition of the next one. */
  revision: number;
  created_at: number;
  updated_at: number;
  has_external_ids: boolean;
}

export interface PathStep {
  id: number;
  name: string;
}

/** Deeper than any real tree: a cycle (left by two racing moves) stops the walk here. */
const MAX_DEPTH = 1000;

export class FolderTree {
  readonly folders: readonly FolderRecord[];
  readonly byId: ReadonlyMap<number, FolderRecord>;
  private readonly childrenOf = new Map<number | null, FolderRecord[]>();

  constructor(folders: readonly FolderRecord[]) {
    this.folders = folders;
    this.byId = new Map(folders.map((folder) => [folder.id, folder]));
    for (const folder of folders) {
      // A folder whose parent is gone (deleted while it was moved there) lives at the root.
      const parent = this.parentOf(folder);
      this.childrenOf.set(parent, [...(this.childrenOf.get(parent) ?? []), folder]);
    }
  }

  get(id: number): FolderRecord | undefined {
    return this.byId.get(id);
  }

  /** The folder's parent as readers see it: null at the root or when the stored parent is gone. */
  parentOf(folder: FolderRecord): number | null {
    return folder.parent_id !== null && this.byId.has(folder.parent_id) ? folder.parent_id : null;
  }

  children(parentId: number | null): readonly FolderRecord[] {
    return this.childrenOf.get(parentId) ?? [];
  }

  /** The ancestors of a folder, outermost first (empty at the root). */
  ancestors(folderId: number): PathStep[] {
    const steps: PathStep[] = [];
    let current = this.byId.get(folderId);
    for (let depth = 0; current && depth < MAX_DEPTH; depth++) {
      const parentId = this.parentOf(current);
      const parent = parentId === null ? undefined : this.byId.get(parentId);
      if (!parent || parent.id === folderId) break;
      steps.unshift({ id: parent.id, name: parent.name });
      current = parent;
    }
    return steps;
  }

  /** The folders from the root down to this one, itself included: an entity in it has these names as path. */
  pathTo(folderId: number | null): PathStep[] {
    if (folderId === null) return [];
    const folder = this.byId.get(folderId);
    return folder ? [...this.ancestors(folderId), { id: folder.id, name: folder.name }] : [];
  }

  /** Whether `candidate` is `folderId` or lies below it. */
  isWithin(candidate: number, folderId: number): boolean {
    if (candidate === folderId) return true;
    return this.ancestors(candidate).some((step) => step.id === folderId);
  }

  /** The folder and every folder below it, deepest first (the order they can be deleted in). */
  subtree(folderId: number): FolderRecord[] {
    const order: FolderRecord[] = [];
    const seen = new Set<number>();
    const visit = (id: number) => {
      const folder = this.byId.get(id);
      if (!folder || seen.has(id)) return;
      seen.add(id);
      for (const child of this.children(id)) visit(child.id);
      order.push(folder);
    };
    visit(folderId);
    return order;
  }

  /** The child of that parent with that name (names are unique in a parent). */
  childNamed(parentId: number | null, name: string): FolderRecord | undefined {
    return this.children(parentId).find((folder) => folder.name === name);
  }

  /** The folder at a path of names from the root. */
  resolve(names: readonly string[]): FolderRecord | undefined {
    let current: FolderRecord | undefined;
    for (const name of names) {
      current = this.childNamed(current?.id ?? null, name);
      if (!current) return undefined;
    }
    return current;
  }
}
