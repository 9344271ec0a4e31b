import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, errorMessage } from '../../api/client.ts';
import { type EntityType, type Me, useSession } from '../../api/session.ts';
import { useApi } from '../../api/use-api.ts';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { navigate, setQuery, useQueryParam } from '../../lib/url-state.ts';
import { entityPath, link } from './link.ts';
import {
  ancestorKeys,
  buildTree,
  type Folder,
  type FolderEntity,
  folderChoices,
  isContainer,
  ROOT_KEY,
  type TreeNode,
  visibleRows,
} from './tree.ts';

/** The kinds a folder holds: the listing's type, the permission that reads or moves it, its label. */
const KINDS: { type: string; permission: EntityType; label: string }[] = [
  { type: 'PROMPT', permission: 'prompts', label: 'Prompt' },
  { type: 'WORKFLOW', permission: 'workflows', label: 'Workflow' },
  { type: 'DATASET', permission: 'datasets', label: 'Dataset' },
  { type: 'REPORT', permission: 'reports', label: 'Report' },
  { type: 'TOOL', permission: 'tools', label: 'Tool' },
  { type: 'SKILL_COLLECTION', permission: 'skills', label: 'Skill collection' },
];
const kindOf = (type: string) => KINDS.find((kind) => kind.type === type);
const labelOf = (node: TreeNode) =>
  node.type === 'FOLDER' ? 'Folder' : (kindOf(node.type)?.label ?? node.type);

const canEdit = (me: Me | undefined, node: TreeNode) => {
  const permission = node.type === 'FOLDER' ? 'folders' : kindOf(node.type)?.permission;
  return node.type !== 'ROOT' && !!permission && me?.permissions[permission] === 'edit';
};

interface Listing {
  folders: Folder[];
  entities: FolderEntity[];
}

/**
 * The Folders view: the workspace's folder tree with every kind the key may read in it (one listing of
 * everything below the root, `flatten`), as an ARIA tree; the selected node (`sel`) and the expanded
 * folders (`open`) live in the URL. Entities move by drag and drop onto a folder or by "Move to…";
 * folders are created, renamed and deleted from the pane beside the tree.
 */
export function FoldersView() {
  const me = useSession()?.me;
  const [selectedKey, setSelected] = useQueryParam('sel', ROOT_KEY);
  const [openParam] = useQueryParam('open', ROOT_KEY);
  const expanded = useMemo(() => new Set(openParam.split(',').filter(Boolean)), [openParam]);
  const [reloads, setReloads] = useState(0);
  const [notice, setNotice] = useState<{ text: string; failed: boolean } | null>(null);
  const readable = KINDS.filter((kind) => me?.permissions[kind.permission]).map((kind) => kind.type);
  const listing = useApi(
    async (signal): Promise<Listing> => {
      const [folders, entities] = await Promise.all([
        api<{ folders: Folder[] }>('GET', '/api/public/v2/folders', { signal }),
        // Tools and skill collections are listed only when filter_type names them (docs/folders.md).
        readable.length === 0
          ? { entities: [] }
          : api<{ entities: FolderEntity[] }>(
              'GET',
              `/api/public/v2/folders/entities?${readable.map((type) => `filter_type=${type}`).join('&')}`,
              { signal, query: { flatten: 'true' } },
            ),
      ]);
      return { folders: folders.folders, entities: entities.entities };
    },
    [reloads, readable.join()],
  );
  const data = listing.data;
  const root = useMemo(() => (data ? buildTree(data.folders, data.entities) : null), [data]);
  const rows = useMemo(() => (root ? visibleRows(root, expanded) : []), [root, expanded]);
  const selectedIndex = Math.max(
    0,
    rows.findIndex((row) => row.node.key === selectedKey),
  );
  const selected = rows[selectedIndex]?.node ?? null;

  const setExpanded = (keys: Iterable<string>) => setQuery({ open: [...keys].join(',') }, 'replace');
  const toggle = (node: TreeNode, open = !expanded.has(node.key)) => {
    const next = new Set(expanded);
    if (open) next.add(node.key);
    else next.delete(node.key);
    setExpanded(next);
  };

  async function run(action: () => Promise<string>, reveal: number | null | undefined = undefined) {
    setNotice(null);
    try {
      const text = await action();
      setNotice({ text, failed: false });
      if (reveal !== undefined && data)
        setExpanded(new Set([...expanded, ...ancestorKeys(data.folders, reveal)]));
      setReloads((count) => count + 1);
    } catch (error) {
      setNotice({ text: errorMessage(error), failed: true });
    }
  }

  const folderName = (folderId: number | null) =>
    folderId === null
      ? 'the workspace root'
      : (data?.folders.find((folder) => folder.id === folderId)?.name ?? `folder ${folderId}`);

  const move = (node: TreeNode, folderId: number | null) =>
    run(async () => {
      await api('POST', '/api/public/v2/folders/entities', {
        body: { entities: [{ id: node.id, type: node.type }], folder_id: folderId },
      });
      return `Moved ${node.name} to ${folderName(folderId)}.`;
    }, folderId);

  return (
    <div class="library-folders">
      {listing.loading && !data ? <Loading what="Loading the folders" /> : null}
      {listing.error ? <ErrorMessage>{listing.error}</ErrorMessage> : null}
      {root ? (
        <FolderTree
          rows={rows}
          selectedIndex={selectedIndex}
          expanded={expanded}
          onSelect={(node, mode) => setSelected(node.key, mode)}
          onToggle={toggle}
          canDrag={(node) => canEdit(me, node)}
          onDrop={(node, target) => move(node, target.id as number | null)}
        />
      ) : null}
      <div class="library-pane">
        {notice ? (
          notice.failed ? (
            <ErrorMessage>{notice.text}</ErrorMessage>
          ) : (
            <p class="notice" role="status">
              {notice.text}
            </p>
          )
        ) : null}
        {selected && data ? (
          <NodePane
            key={selected.key}
            node={selected}
            folders={data.folders}
            me={me}
            onMove={(folderId) => move(selected, folderId)}
            run={run}
            afterDelete={() =>
              setSelected(selected.parentId === null ? ROOT_KEY : `FOLDER:${selected.parentId}`)
            }
          />
        ) : null}
      </div>
    </div>
  );
}

/** The tree's rows have one height (styles.css), so the rows in view follow from the scroll position. */
const ROW_HEIGHT = 28;
const OVERSCAN = 10;
const VIEW_HEIGHT_GUESS = 800;

interface FolderTreeProps {
  rows: ReturnType<typeof visibleRows>;
  selectedIndex: number;
  expanded: ReadonlySet<string>;
  onSelect(node: TreeNode, mode: 'push' | 'replace'): void;
  onToggle(node: TreeNode, open?: boolean): void;
  canDrag(node: TreeNode): boolean;
  onDrop(node: TreeNode, target: TreeNode): void;
}

/**
 * The tree (WAI-ARIA tree pattern, one tab stop): arrows move and open or close folders, Home / End,
 * Enter opens an entity in its screen or toggles a folder. Rows are flat `treeitem`s with their level,
 * position and set size, so only the expanded part is in the DOM.
 */
function FolderTree({ rows, selectedIndex, expanded, onSelect, onToggle, canDrag, onDrop }: FolderTreeProps) {
  const treeRef = useRef<HTMLDivElement>(null);
  const dragged = useRef<TreeNode | null>(null);
  const [dropKey, setDropKey] = useState<string | null>(null);
  const [scrollTop, setScrollTop] = useState(0);
  // A row chosen with the keyboard takes the focus once it is rendered (it may have been scrolled out).
  const focusNext = useRef<string | null>(null);
  useEffect(() => {
    const key = focusNext.current;
    const row = key && treeRef.current?.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`);
    if (!row) return;
    focusNext.current = null;
    row.focus();
  });
  const reveal = (index: number) => {
    const element = treeRef.current;
    if (!element) return;
    const top = index * ROW_HEIGHT;
    if (top < element.scrollTop) element.scrollTop = top;
    else if (top + ROW_HEIGHT > element.scrollTop + element.clientHeight)
      element.scrollTop = top + ROW_HEIGHT - element.clientHeight;
    setScrollTop(element.scrollTop);
  };

  // Only the rows in view (and a few around) are in the DOM: a folder may hold thousands of entities.
  const viewHeight = treeRef.current?.clientHeight || VIEW_HEIGHT_GUESS;
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scrollTop + viewHeight) / ROW_HEIGHT) + OVERSCAN);

  const open = (node: TreeNode) => {
    if (isContainer(node)) onToggle(node);
    else {
      const path = node.id === null ? null : entityPath(node.type, node.id, node.name);
      if (path) navigate(path);
    }
  };

  // Keys pressed faster than the tree renders build on each other: each starts from the row the key
  // before it chose, not from the row of the last render (holding ↑ on a slow machine skips none).
  const active = useRef({ rendered: selectedIndex, index: selectedIndex });
  if (active.current.rendered !== selectedIndex)
    active.current = { rendered: selectedIndex, index: selectedIndex };

  const onKeyDown = (event: KeyboardEvent) => {
    const from = active.current.index;
    const row = rows[from];
    if (!row || event.ctrlKey || event.altKey || event.metaKey) return;
    const node = row.node;
    const go = (index: number) => {
      const target = rows[Math.max(0, Math.min(rows.length - 1, index))];
      if (!target) return;
      active.current.index = rows.indexOf(target);
      focusNext.current = target.node.key;
      reveal(rows.indexOf(target));
      onSelect(target.node, 'replace');
    };
    switch (event.key) {
      case 'ArrowDown':
        go(from + 1);
        break;
      case 'ArrowUp':
        go(from - 1);
        break;
      case 'Home':
        go(0);
        break;
      case 'End':
        go(rows.length - 1);
        break;
      case 'ArrowRight':
        if (!isContainer(node)) return;
        if (!expanded.has(node.key)) onToggle(node, true);
        else if (node.children.length > 0) go(from + 1);
        break;
      case 'ArrowLeft':
        if (isContainer(node) && expanded.has(node.key)) onToggle(node, false);
        else if (row.parent) go(rows.findIndex((candidate) => candidate.node === row.parent));
        break;
      case 'Enter':
        open(node);
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  return (
    <div
      class="library-tree"
      role="tree"
      aria-label="Folders and what they hold"
      ref={treeRef}
      onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
    >
      <div role="none" class="library-tree-canvas" style={{ height: `${rows.length * ROW_HEIGHT}px` }}>
        <div role="none" style={{ transform: `translateY(${first * ROW_HEIGHT}px)` }}>
          {rows.slice(first, last).map((row, offset) => {
            const index = first + offset;
            const { node } = row;
            const container = isContainer(node);
            const draggable = canDrag(node);
            return (
              <div
                key={node.key}
                role="treeitem"
                data-key={node.key}
                aria-level={row.level}
                aria-setsize={row.setSize}
                aria-posinset={row.position}
                aria-selected={index === selectedIndex}
                aria-expanded={container ? expanded.has(node.key) : undefined}
                tabIndex={index === selectedIndex ? 0 : -1}
                class={`library-node${dropKey === node.key ? ' drop-target' : ''}`}
                style={{ paddingLeft: `${(row.level - 1) * 1.25 + 0.25}rem` }}
                draggable={draggable}
                onClick={() => onSelect(node, 'push')}
                onKeyDown={onKeyDown}
                onDblClick={() => open(node)}
                onDragStart={(event) => {
                  dragged.current = node;
                  event.dataTransfer?.setData('text/plain', node.key);
                  if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move';
                }}
                onDragEnd={() => {
                  dragged.current = null;
                  setDropKey(null);
                }}
                onDragOver={(event) => {
                  if (!container || !dragged.current || dragged.current === node) return;
                  event.preventDefault();
                  if (event.dataTransfer) event.dataTransfer.dropEffect = 'move';
                  setDropKey(node.key);
                }}
                onDragLeave={() => setDropKey((key) => (key === node.key ? null : key))}
                onDrop={(event) => {
                  event.preventDefault();
                  const moved = dragged.current;
                  dragged.current = null;
                  setDropKey(null);
                  if (moved && container && moved !== node) onDrop(moved, node);
                }}
              >
                <span class="library-twisty" aria-hidden="true">
                  {container ? (expanded.has(node.key) ? '▾' : '▸') : ''}
                </span>
                <span class="library-name">{node.name}</span>
                {node.type !== 'ROOT' ? <span class="library-kind"> {labelOf(node)}</span> : null}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

interface NodePaneProps {
  node: TreeNode;
  folders: Folder[];
  me: Me | undefined;
  onMove(folderId: number | null): void;
  run(action: () => Promise<string>, reveal?: number | null): Promise<void>;
  afterDelete(): void;
}

/** What can be done with the selected node: open it, move it, and for folders create, rename, delete. */
function NodePane({ node, folders, me, onMove, run, afterDelete }: NodePaneProps) {
  const path = node.id === null ? null : entityPath(node.type, node.id, node.name);
  const editFolders = me?.permissions.folders === 'edit';
  const movable = canEdit(me, node);
  return (
    <section aria-labelledby="library-node-title" class="library-node-pane">
      <h2 id="library-node-title">{node.name}</h2>
      <p class="muted">
        {node.type === 'ROOT' ? 'Everything not in a folder.' : labelOf(node)}
        {isContainer(node) ? ` — ${node.children.length} item${node.children.length === 1 ? '' : 's'}` : ''}
      </p>
      {path ? (
        <p>
          <a {...link(path)}>Open {node.name}</a>
        </p>
      ) : !isContainer(node) ? (
        <p class="muted">This kind has no screen of its own yet.</p>
      ) : null}
      {movable ? <MoveForm node={node} folders={folders} onMove={onMove} /> : null}
      {isContainer(node) && editFolders ? (
        <NameForm
          label="New folder"
          action="Create folder"
          onSubmit={(name) =>
            run(
              async () => {
                await api('POST', '/api/public/v2/folders', {
                  body: { name, parent_id: node.type === 'FOLDER' ? node.id : null },
                });
                return `Created folder ${name}.`;
              },
              node.type === 'FOLDER' ? (node.id as number) : null,
            )
          }
        />
      ) : null}
      {node.type === 'FOLDER' && editFolders ? (
        <>
          <NameForm
            label="Rename to"
            action="Rename"
            initial={node.name}
            onSubmit={(name) =>
              run(async () => {
                await api('PATCH', `/api/public/v2/folders/${node.id}`, { body: { name } });
                return `Renamed ${node.name} to ${name}.`;
              })
            }
          />
          <DeleteFolder node={node} run={run} afterDelete={afterDelete} />
        </>
      ) : null}
    </section>
  );
}

function MoveForm({
  node,
  folders,
  onMove,
}: {
  node: TreeNode;
  folders: Folder[];
  onMove(folderId: number | null): void;
}) {
  const [open, setOpen] = useState(false);
  const [target, setTarget] = useState('');
  const selectRef = useRef<HTMLSelectElement>(null);
  useEffect(() => {
    if (open) selectRef.current?.focus();
  }, [open]);
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Move to…
      </button>
    );
  const choices = folderChoices(folders).filter(
    (choice) => !(node.type === 'FOLDER' && choice.id === node.id),
  );
  return (
    <form
      class="library-form"
      onSubmit={(event) => {
        event.preventDefault();
        setOpen(false);
        onMove(target === '' ? null : Number(target));
      }}
    >
      <label for="library-move-target">Move {node.name} to</label>
      <select
        id="library-move-target"
        ref={selectRef}
        value={target}
        onChange={(event) => setTarget(event.currentTarget.value)}
        onKeyDown={(event) => event.key === 'Escape' && setOpen(false)}
      >
        <option value="">Workspace root</option>
        {choices.map((choice) => (
          <option key={choice.id} value={String(choice.id)}>
            {choice.label}
          </option>
        ))}
      </select>
      <button type="submit">Move</button>
      <button type="button" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </form>
  );
}

function NameForm({
  label,
  action,
  initial = '',
  onSubmit,
}: {
  label: string;
  action: string;
  initial?: string;
  onSubmit(name: string): Promise<void>;
}) {
  const [name, setName] = useState(initial);
  const id = `library-${action.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <form
      class="library-form"
      onSubmit={(event) => {
        event.preventDefault();
        const trimmed = name.trim();
        if (trimmed) void onSubmit(trimmed).then(() => initial === '' && setName(''));
      }}
    >
      <label for={id}>{label}</label>
      <input
        id={id}
        value={name}
        maxLength={255}
        required
        onInput={(event) => setName(event.currentTarget.value)}
      />
      <button type="submit">{action}</button>
    </form>
  );
}

/** Delete asks once more in place; a folder that holds anything is refused by the API, which says what it holds. */
function DeleteFolder({ node, run, afterDelete }: Pick<NodePaneProps, 'node' | 'run' | 'afterDelete'>) {
  const [confirming, setConfirming] = useState(false);
  if (!confirming)
    return (
      <p>
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          Delete folder…
        </button>
      </p>
    );
  return (
    <p class="library-form">
      <span>Delete the folder {node.name}? Only an empty folder can be deleted.</span>
      <button
        type="button"
        class="danger"
        onClick={() => {
          setConfirming(false);
          void run(async () => {
            await api('DELETE', `/api/public/v2/folders/${node.id}`);
            afterDelete();
            return `Deleted folder ${node.name}.`;
          });
        }}
      >
        Delete
      </button>
      <button type="button" onClick={() => setConfirming(false)}>
        Cancel
      </button>
    </p>
  );
}
