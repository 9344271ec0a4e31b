/**
 * The folder tree of the Folders view, built in memory from the workspace's folders and the flattened
 * listing of its entities, and the rows a tree widget shows for a set of expanded nodes.
 */

export interface Folder {
  id: number;
  name: string;
  parent_id: number | null;
}

/** An item of `GET /api/public/v2/folders/entities` (a skill collection's id is a UUID). */
export interface FolderEntity {
  id: number | string;
  name: string;
  type: string;
  folder_id: number | null;
}

export interface TreeNode {
  /** `root`, `FOLDER:12`, `PROMPT:3`, `SKILL_COLLECTION:<uuid>`: unique in the tree, kept in the URL. */
  key: string;
  type: 'ROOT' | 'FOLDER' | string;
  id: number | string | null;
  name: string;
  /** The folder holding it (null: the root; the root itself has none). */
  parentId: number | null;
  children: TreeNode[];
}

export interface TreeRow {
  node: TreeNode;
  level: number;
  setSize: number;
  position: number;
  parent: TreeNode | null;
}

export const ROOT_KEY = 'root';
export const keyOf = (type: string, id: number | string) => `${type}:${id}`;

const byName = (a: TreeNode, b: TreeNode) =>
  a.name.localeCompare(b.name) || String(a.id).localeCompare(String(b.id));

/** Folders first, then entities by kind and name; an entity or folder under a missing folder sits at the root. */
export function buildTree(folders: Folder[], entities: FolderEntity[]): TreeNode {
  const root: TreeNode = {
    key: ROOT_KEY,
    type: 'ROOT',
    id: null,
    name: 'Workspace root',
    parentId: null,
    children: [],
  };
  const folderNodes = new Map<number, TreeNode>();
  for (const folder of folders)
    folderNodes.set(folder.id, {
      key: keyOf('FOLDER', folder.id),
      type: 'FOLDER',
      id: folder.id,
      name: folder.name,
      parentId: folder.parent_id,
      children: [],
    });
  const holder = (folderId: number | null) =>
    folderId === null ? root : (folderNodes.get(folderId) ?? root);
  for (const node of folderNodes.values()) holder(node.parentId).children.push(node);
  const entityNodes: TreeNode[] = entities.map((entity) => ({
    key: keyOf(entity.type, entity.id),
    type: entity.type,
    id: entity.id,
    name: entity.name,
    parentId: entity.folder_id,
    children: [],
  }));
  for (const node of entityNodes) holder(node.parentId).children.push(node);
  const sort = (node: TreeNode) => {
    node.children.sort(
      (a, b) =>
        Number(b.type === 'FOLDER') - Number(a.type === 'FOLDER') ||
        a.type.localeCompare(b.type) ||
        byName(a, b),
    );
    for (const child of node.children) sort(child);
  };
  sort(root);
  return root;
}

export const isContainer = (node: TreeNode) => node.type === 'ROOT' || node.type === 'FOLDER';

/** The rows shown: the root, then the children of every expanded container, depth first. */
export function visibleRows(root: TreeNode, expanded: ReadonlySet<string>): TreeRow[] {
  const rows: TreeRow[] = [{ node: root, level: 1, setSize: 1, position: 1, parent: null }];
  const walk = (node: TreeNode, level: number) => {
    if (!expanded.has(node.key)) return;
    node.children.forEach((child, index) => {
      rows.push({ node: child, level, setSize: node.children.length, position: index + 1, parent: node });
      if (isContainer(child)) walk(child, level + 1);
    });
  };
  walk(root, 2);
  return rows;
}

/** Every folder with its path of names (`Team / Evals`), for the "Move to…" choice. */
export function folderChoices(folders: Folder[]): { id: number; label: string }[] {
  const byId = new Map(folders.map((folder) => [folder.id, folder]));
  const pathOf = (folder: Folder): string => {
    const names = [folder.name];
    const seen = new Set([folder.id]);
    let parent = folder.parent_id === null ? undefined : byId.get(folder.parent_id);
    while (parent && !seen.has(parent.id)) {
      names.unshift(parent.name);
      seen.add(parent.id);
      parent = parent.parent_id === null ? undefined : byId.get(parent.parent_id);
    }
    return names.join(' / ');
  };
  return folders
    .map((folder) => ({ id: folder.id, label: pathOf(folder) }))
    .sort((a, b) => a.label.localeCompare(b.label));
}

/** The keys of the folders above a node (to expand them so it shows). */
export function ancestorKeys(folders: Folder[], folderId: number | null): string[] {
  const byId = new Map(folders.map((folder) => [folder.id, folder]));
  const keys = [ROOT_KEY];
  const seen = new Set<number>();
  let current = folderId === null ? undefined : byId.get(folderId);
  while (current && !seen.has(current.id)) {
    keys.push(keyOf('FOLDER', current.id));
    seen.add(current.id);
    current = current.parent_id === null ? undefined : byId.get(current.parent_id);
  }
  return keys;
}
