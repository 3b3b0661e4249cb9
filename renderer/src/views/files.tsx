import { useEffect, useRef, useState } from 'preact/hooks';
import type { SyncedEntry } from '../../../main/app/contract.js';
import { call, messageOf } from '../api.js';
import { formatBytes } from '../format.js';
import { ShareDialog } from './share-dialog.js';

/** Small inline icons (no emoji font is needed, and the CSP allows no remote images). */
function EntryIcon({ type }: { type: 'file' | 'folder' }) {
  return (
    <svg class={`icon icon-${type}`} viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
      {type === 'folder' ? <path d="M1 3.5A1.5 1.5 0 0 1 2.5 2h3.6l1.6 1.6h5.8A1.5 1.5 0 0 1 15 5.1v7.4a1.5 1.5 0 0 1-1.5 1.5h-11A1.5 1.5 0 0 1 1 12.5z" /> : <path d="M3 1.5A1.5 1.5 0 0 1 4.5 0h5L14 4.5v10a1.5 1.5 0 0 1-1.5 1.5h-8A1.5 1.5 0 0 1 3 14.5zM9.5 1v3.5H13" />}
    </svg>
  );
}

export function FilesView({ folders }: { folders: string[] }) {
  const [root, setRoot] = useState(folders[0] ?? '');
  const [path, setPath] = useState('');
  const [entries, setEntries] = useState<SyncedEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sharing, setSharing] = useState<SyncedEntry | null>(null);
  const opener = useRef<HTMLElement | null>(null);

  const load = () => {
    if (!root) return;
    setEntries(null);
    call('entries:browse', { root, path }).then(
      (list) => {
        setEntries(list);
        setError(null);
      },
      (e) => setError(messageOf(e)),
    );
  };
  useEffect(load, [root, path]);

  const crumbs = path === '' ? [] : path.split('/');
  const openShare = (entry: SyncedEntry, event: Event) => {
    opener.current = event.currentTarget as HTMLElement;
    setSharing(entry);
  };
  const closeShare = () => {
    setSharing(null);
    // Focus goes back to the button that opened the dialog.
    queueMicrotask(() => opener.current?.focus());
  };

  return (
    <section aria-labelledby="files-title">
      <h2 id="files-title" tabIndex={-1}>
        Files and sharing
      </h2>
      {folders.length > 1 ? (
        <div class="field">
          <label for="files-root">Synced folder</label>
          <select
            id="files-root"
            value={root}
            onChange={(e) => {
              setRoot((e.currentTarget as HTMLSelectElement).value);
              setPath('');
            }}
          >
            {folders.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <nav aria-label="Folder path" class="crumbs">
        <ol>
          <li>
            <button type="button" class="link-button" onClick={() => setPath('')} aria-current={path === '' ? 'location' : undefined}>
              {root.slice(root.lastIndexOf('/') + 1) || root}
            </button>
          </li>
          {crumbs.map((name, i) => (
            <li key={i}>
              <button
                type="button"
                class="link-button"
                onClick={() => setPath(crumbs.slice(0, i + 1).join('/'))}
                aria-current={i === crumbs.length - 1 ? 'location' : undefined}
              >
                {name}
              </button>
            </li>
          ))}
        </ol>
      </nav>
      {error ? <p role="alert">{error}</p> : null}
      {entries === null ? (
        <p class="muted">Loading…</p>
      ) : entries.length === 0 ? (
        <p class="muted">Nothing synced here yet.</p>
      ) : (
        <table class="entries" data-testid="entries">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Size</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.remoteId}>
                <td>
                  {entry.type === 'folder' ? (
                    <button type="button" class="link-button" onClick={() => setPath(entry.path)}>
                      <EntryIcon type="folder" />
                      {entry.name}
                      <span class="sr-only"> (folder)</span>
                    </button>
                  ) : (
                    <span class="file-name">
                      <EntryIcon type="file" />
                      {entry.name}
                    </span>
                  )}
                </td>
                <td>{entry.type === 'folder' ? '—' : formatBytes(entry.size)}</td>
                <td>
                  <button type="button" onClick={(e) => openShare(entry, e)} aria-label={`Share ${entry.name}`}>
                    Share…
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {sharing ? <ShareDialog entry={sharing} onClose={closeShare} /> : null}
    </section>
  );
}
