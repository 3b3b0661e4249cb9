import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { DriveFolderTree, DriveFolderView, NewFolders, SelectionChanges, SelectionPlan, SelectionSide } from '../../../main/contract/index.js';
import { call, messageOf } from '../api.js';
import { folderName, formatBytes } from '../format.js';
import { PathText } from '../path-text.js';

type Change = SelectionChanges['changes'][number];
type Checked = 'true' | 'false' | 'mixed';

const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;
const folders = (n: number) => `${n} folder${n === 1 ? '' : 's'}`;
const sizeOf = (f: { bytes: number; files: number }) => `${formatBytes(f.bytes)} · ${files(f.files)}`;

/** How each folder is ticked, for a set of folders left out: out, in, or in with something left out inside. */
function checkedOf(tree: DriveFolderTree, excluded: ReadonlySet<number>): Map<number, Checked> {
  const out = new Set<number>();
  // Parents come before their children in the tree's list.
  for (const f of tree.folders) if (excluded.has(f.id) || (f.parentId !== null && out.has(f.parentId))) out.add(f.id);
  const mixed = new Set<number>();
  for (let i = tree.folders.length - 1; i >= 0; i--) {
    const f = tree.folders[i]!;
    if (f.parentId !== null && !out.has(f.parentId) && (out.has(f.id) || mixed.has(f.id))) mixed.add(f.parentId);
  }
  return new Map(tree.folders.map((f) => [f.id, out.has(f.id) ? 'false' : mixed.has(f.id) ? 'mixed' : 'true']));
}

function Side({ side, title, testId, note }: { side: SelectionSide; title: string; testId: string; note: string }) {
  return (
    <div data-testid={testId} class="choose-side">
      <p>
        <strong>{title}</strong>: {folders(side.folders.length)}, {formatBytes(side.bytes)} ({files(side.files)}). {note}
      </p>
      <ul class="choose-side-list">
        {side.folders.map((f) => (
          <li key={f.id}>
            <PathText path={f.path} /> <span class="muted small">{sizeOf(f)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** What applying would do, said before it is done. */
function Summary({ plan, was }: { plan: SelectionPlan | null; was: NewFolders }) {
  const newFoldersChanged = plan !== null && plan.newFolders !== was;
  return (
    <section aria-labelledby="choose-summary-title" class="choose-summary" data-testid="choose-summary">
      <h3 id="choose-summary-title">When you apply</h3>
      {!plan || !plan.changed ? (
        <p class="muted">Nothing changes yet: tick the folders to keep on this computer, untick those to leave out.</p>
      ) : (
        <>
          {plan.remove.folders.length > 0 ? (
            <Side side={plan.remove} title="Removed from this computer" testId="choose-remove" note="They stay on the drive; each copy here goes once everything in it is on the drive." />
          ) : null}
          {plan.download.folders.length > 0 ? <Side side={plan.download} title="Downloaded to this computer" testId="choose-download" note="" /> : null}
          {newFoldersChanged ? (
            <p data-testid="choose-new-folders">
              {plan.newFolders === 'exclude' ? 'New folders made on the drive are left out until you tick them here.' : 'New folders made on the drive are synced here.'}
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}

/** What an applied change did, in one message. */
function report(plan: SelectionPlan, was: NewFolders): string {
  if (!plan.changed) return 'Nothing changed.';
  const said: string[] = [];
  const { remove, download } = plan;
  if (remove.folders.length === 1) {
    said.push(`${remove.folders[0]!.path} (${formatBytes(remove.bytes)}) leaves this computer once everything in it is on the drive, which keeps it.`);
  } else if (remove.folders.length > 1) {
    said.push(`${folders(remove.folders.length)} (${formatBytes(remove.bytes)}) leave this computer once everything in them is on the drive, which keeps them.`);
  }
  if (download.folders.length === 1) said.push(`${download.folders[0]!.path} (${formatBytes(download.bytes)}) is being downloaded.`);
  else if (download.folders.length > 1) said.push(`${folders(download.folders.length)} (${formatBytes(download.bytes)}) are being downloaded.`);
  if (plan.newFolders !== was) said.push(plan.newFolders === 'exclude' ? 'New folders on the drive are left out from now on.' : 'New folders on the drive are synced from now on.');
  return ['Saved.', ...said].join(' ');
}

/**
 * "Choose folders…": the drive's folders for one synced folder, each with a check box and its size. A tree (WAI-ARIA
 * tree view): one Tab stop, the arrow keys move and open or close a folder (its subfolders are rendered once it is
 * open), Space ticks or unticks, Enter opens or closes. Each change is previewed by the host, which says what would
 * come down and what would leave this computer; Apply writes it, and the folder's sync follows.
 */
/**
 * Which synced folder's chooser is open, opened from a button: `open(root, event)` from its click, and the dialog
 * (null when none is open), which gives the focus back to that button when it closes.
 */
export function useChooser(): { open: (root: string, event: Event) => void; dialog: preact.JSX.Element | null } {
  const [choosing, setChoosing] = useState<string | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const open = (root: string, event: Event) => {
    opener.current = event.currentTarget as HTMLElement;
    setChoosing(root);
  };
  const close = () => {
    setChoosing(null);
    queueMicrotask(() => opener.current?.focus());
  };
  return { open, dialog: choosing ? <ChooseFoldersDialog root={choosing} onClose={close} /> : null };
}

export function ChooseFoldersDialog({ root, onClose }: { root: string; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const treeRef = useRef<HTMLUListElement>(null);
  const [tree, setTree] = useState<DriveFolderTree | null>(null);
  const [changes, setChanges] = useState<Change[]>([]);
  const [newFolders, setNewFolders] = useState<NewFolders>('sync');
  const [plan, setPlan] = useState<SelectionPlan | null>(null);
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(new Set());
  const [active, setActive] = useState<number | null>(null);
  const [message, setMessage] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** Only the answer to the latest preview counts (they may come back out of order). */
  const asked = useRef(0);
  /** The tree gets the focus once, when it first shows. */
  const focusTree = useRef(true);
  const doneRef = useRef<HTMLButtonElement>(null);

  const load = async () => {
    try {
      const next = await call('selection:tree', { root });
      setTree(next);
      setNewFolders(next.newFolders);
      setChanges([]);
      setPlan(null);
      setActive((was) => (was !== null && next.folders.some((f) => f.id === was) ? was : (next.folders[0]?.id ?? null)));
      setError(null);
    } catch (e) {
      setError(messageOf(e));
    }
  };
  useEffect(() => {
    ref.current?.showModal();
    void load();
  }, [root]);

  const children = useMemo(() => {
    const map = new Map<number | null, DriveFolderView[]>();
    for (const f of tree?.folders ?? []) map.set(f.parentId, [...(map.get(f.parentId) ?? []), f]);
    return map;
  }, [tree]);
  const byId = useMemo(() => new Map((tree?.folders ?? []).map((f) => [f.id, f])), [tree]);
  const excluded = useMemo(() => new Set(plan?.excluded ?? tree?.excluded ?? []), [plan, tree]);
  const checked = useMemo(() => (tree ? checkedOf(tree, excluded) : new Map<number, Checked>()), [tree, excluded]);

  // The focus follows the active folder while it is in the tree (the arrow keys move it).
  useEffect(() => {
    if (active === null || !treeRef.current) return;
    const wanted = treeRef.current.ownerDocument.activeElement?.closest('[role="tree"]') === treeRef.current || focusTree.current;
    if (!wanted) return;
    focusTree.current = false;
    treeRef.current.querySelector<HTMLElement>(`[data-id="${active}"]`)?.focus();
  }, [active, tree, expanded]);

  const preview = (nextChanges: Change[], nextNewFolders: NewFolders) => {
    const mine = ++asked.current;
    setChanges(nextChanges);
    setNewFolders(nextNewFolders);
    setMessage('');
    call('selection:preview', { root, changes: nextChanges, newFolders: nextNewFolders }).then(
      (answer) => {
        if (mine !== asked.current) return;
        setPlan(answer);
        setError(null);
      },
      (e) => {
        if (mine === asked.current) setError(messageOf(e));
      },
    );
  };

  const toggle = (id: number) => {
    if (busy) return;
    // A folder left out, or in with something left out inside it, is included whole; a folder ticked is left out.
    preview([...changes, { id, include: checked.get(id) !== 'true' }], newFolders);
  };
  const setOpen = (id: number, open: boolean) =>
    setExpanded((was) => {
      const next = new Set(was);
      if (open) next.add(id);
      else next.delete(id);
      return next;
    });

  /**
   * The folders shown, in order: the top ones, and after each open folder its subfolders. The tree is rendered flat
   * (each item says its level, place and count), so a folder's own row is all that is inside its item.
   */
  const shown = useMemo(() => {
    const out: Array<{ folder: DriveFolderView; level: number; index: number; siblings: number }> = [];
    const add = (parent: number | null, level: number) => {
      const kids = children.get(parent) ?? [];
      kids.forEach((folder, index) => {
        out.push({ folder, level, index, siblings: kids.length });
        if (expanded.has(folder.id)) add(folder.id, level + 1);
      });
    };
    add(null, 1);
    return out;
  }, [children, expanded]);
  const visible = () => shown.map((row) => row.folder.id);

  const onKeyDown = (event: KeyboardEvent) => {
    if (active === null) return;
    const list = visible();
    const at = list.indexOf(active);
    const folder = byId.get(active);
    const hasChildren = (children.get(active) ?? []).length > 0;
    let handled = true;
    switch (event.key) {
      case 'ArrowDown':
        if (at < list.length - 1) setActive(list[at + 1]!);
        break;
      case 'ArrowUp':
        if (at > 0) setActive(list[at - 1]!);
        break;
      case 'Home':
        setActive(list[0]!);
        break;
      case 'End':
        setActive(list[list.length - 1]!);
        break;
      case 'ArrowRight':
        if (hasChildren && !expanded.has(active)) setOpen(active, true);
        else if (hasChildren) setActive(children.get(active)![0]!.id);
        break;
      case 'ArrowLeft':
        if (expanded.has(active)) setOpen(active, false);
        else if (folder?.parentId != null) setActive(folder.parentId);
        break;
      case 'Enter':
        if (hasChildren) setOpen(active, !expanded.has(active));
        break;
      case ' ':
        toggle(active);
        break;
      default:
        handled = false;
    }
    if (handled) {
      event.preventDefault();
      event.stopPropagation();
    }
  };

  const apply = async () => {
    // A preview still on its way is of the selection before this one.
    asked.current++;
    setBusy(true);
    setError(null);
    try {
      const done = await call('selection:apply', { root, changes, newFolders });
      const was = tree?.newFolders ?? 'sync';
      await load();
      setMessage(report(done, was));
      // Apply is disabled again until the next change: the focus goes to the button that closes the dialog.
      queueMicrotask(() => doneRef.current?.focus());
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  const item = (f: DriveFolderView, level: number, index: number, siblings: number) => {
    const kids = children.get(f.id) ?? [];
    const open = expanded.has(f.id);
    const state = checked.get(f.id) ?? 'true';
    return (
      <li
        key={f.id}
        role="treeitem"
        data-id={f.id}
        aria-level={level}
        aria-posinset={index + 1}
        aria-setsize={siblings}
        aria-expanded={kids.length > 0 ? (open ? 'true' : 'false') : undefined}
        aria-checked={state}
        aria-labelledby={`choose-name-${f.id} choose-size-${f.id}`}
        tabIndex={f.id === active ? 0 : -1}
        onFocus={(e) => {
          if (e.target === e.currentTarget) setActive(f.id);
        }}
      >
        <div class="tree-row" style={{ paddingLeft: `${(level - 1) * 1.25}rem` }}>
          <span
            class={`twisty${kids.length === 0 ? ' leaf' : ''}`}
            aria-hidden="true"
            onClick={(e) => {
              e.stopPropagation();
              setActive(f.id);
              if (kids.length > 0) setOpen(f.id, !open);
            }}
          >
            {kids.length === 0 ? '' : open ? '▾' : '▸'}
          </span>
          <span
            class={`check check-${state}`}
            aria-hidden="true"
            onClick={(e) => {
              e.stopPropagation();
              setActive(f.id);
              toggle(f.id);
            }}
          />
          <span class="tree-name" id={`choose-name-${f.id}`} onClick={() => setActive(f.id)}>
            {f.name}
          </span>{' '}
          <span class="muted small tree-size" id={`choose-size-${f.id}`}>
            {sizeOf(f)}
          </span>
        </div>
      </li>
    );
  };

  const top = children.get(null) ?? [];
  return (
    <dialog ref={ref} class="choose-dialog" aria-labelledby="choose-title" aria-describedby="choose-text" onClose={onClose} data-testid="choose-dialog">
      <header class="dialog-header">
        <h2 id="choose-title">
          Choose folders of <span class="entry-title">“{folderName(root)}”</span>
        </h2>
        <button type="button" class="close" onClick={() => ref.current?.close()} aria-label="Close">
          ✕
        </button>
      </header>
      <p id="choose-text" class="muted small">
        Ticked folders are synced to this computer. A folder left out stays on the drive. Arrow keys move and open folders, Space ticks or unticks.
      </p>
      <div role="status" aria-live="polite" class="dialog-message" data-testid="choose-message">
        {message}
      </div>
      {error ? (
        <div role="alert" class="error-summary" data-testid="choose-error">
          {error}
        </div>
      ) : null}
      {tree === null ? (
        error ? null : <p class="muted">Looking at the drive…</p>
      ) : top.length === 0 ? (
        <p class="muted">The drive has no folders here yet: everything in it is synced.</p>
      ) : (
        <ul role="tree" aria-label={`Folders of the drive in ${folderName(root)}`} class="folder-tree" ref={treeRef} onKeyDown={onKeyDown} data-testid="choose-tree">
          {shown.map((row) => item(row.folder, row.level, row.index, row.siblings))}
        </ul>
      )}
      {tree ? (
        <>
          <fieldset class="new-folders">
            <legend>New folders made on the drive</legend>
            <span class="checkbox">
              <input type="radio" id="choose-new-sync" name="choose-new" checked={newFolders === 'sync'} onChange={() => preview(changes, 'sync')} />
              <label for="choose-new-sync">Sync them here</label>
            </span>
            <span class="checkbox">
              <input type="radio" id="choose-new-exclude" name="choose-new" checked={newFolders === 'exclude'} onChange={() => preview(changes, 'exclude')} />
              <label for="choose-new-exclude">Leave them out until I tick them</label>
            </span>
          </fieldset>
          <Summary plan={plan} was={tree.newFolders} />
        </>
      ) : null}
      <div class="actions">
        <button type="button" class="primary" disabled={busy || !plan?.changed} onClick={() => void apply()}>
          Apply
        </button>
        <button type="button" ref={doneRef} onClick={() => ref.current?.close()}>
          {message ? 'Done' : 'Cancel'}
        </button>
      </div>
    </dialog>
  );
}
