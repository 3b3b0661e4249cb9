import { useEffect, useRef } from 'preact/hooks';
import type { FirstSyncPreview } from '../../../main/contract/index.js';
import { folderName, formatBytes } from '../format.js';
import { PathText } from '../path-text.js';

const items = (n: number) => `${n} item${n === 1 ? '' : 's'}`;
/** Items listed in the dialog; the counts cover every one. */
const SHOWN = 20;

const VERBS: Record<string, string> = {
  upload: 'goes up',
  'upload-new-version': 'goes up',
  'create-folder-on-drive': 'is made on the drive',
  download: 'comes down',
  'create-folder-here': 'is made here',
  compare: 'is compared',
  conflict: 'is kept both ways',
};

/**
 * Before a first sync into a folder that is not empty: what would go up, what would come down, what is compared
 * (found by a dry run, which changes nothing), and the choice to start or not.
 */
export function FirstSyncDialog({ preview, onStart, onCancel }: { preview: FirstSyncPreview; onStart: () => void; onCancel: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => ref.current?.showModal(), []);
  const name = folderName(preview.root);
  return (
    <dialog ref={ref} aria-labelledby="first-sync-title" aria-describedby="first-sync-text" onClose={onCancel} data-testid="first-sync-dialog">
      <h2 id="first-sync-title">Before the first sync of {name}</h2>
      <p id="first-sync-text">
        {items(preview.up.count)} ({formatBytes(preview.up.bytes)}) would go up to the drive, and {items(preview.down.count)} (
        {formatBytes(preview.down.bytes)}) would come down here.
        {preview.compared > 0 ? ` ${items(preview.compared)} at the same place on both sides would be compared; where they differ, both are kept.` : ''} Nothing
        is deleted, and nothing has changed yet.
      </p>
      <p class="muted small">
        <PathText path={preview.root} />
      </p>
      <ul class="deletion-items" data-testid="first-sync-items">
        {preview.items.slice(0, SHOWN).map((item) => (
          <li key={`${item.kind} ${item.path}`}>
            <PathText path={item.path} /> {VERBS[item.kind] ?? item.kind}
          </li>
        ))}
      </ul>
      {preview.items.length > SHOWN ? <p class="muted small">and more, {items(preview.up.count + preview.down.count + preview.compared)} in all</p> : null}
      <div class="actions">
        <button type="button" class="primary" onClick={onStart} autofocus>
          Start syncing {name}
        </button>
        <button type="button" onClick={() => ref.current?.close()}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
