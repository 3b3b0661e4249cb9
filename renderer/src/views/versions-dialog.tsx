import { useEffect, useRef, useState } from 'preact/hooks';
import type { FileVersions } from '../../../main/contract/index.js';
import { call, messageOf } from '../api.js';
import { formatBytes, formatTime as formatKnownTime } from '../format.js';

const formatTime = (iso: string | null) => (iso ? formatKnownTime(iso) : 'at a time the drive does not say');

/** A file of a synced folder, as the views that open the dialog know it. */
export interface VersionedFile {
  root: string;
  path: string;
  name: string;
}

/**
 * A file's version history: the current version and the earlier ones (each save made one), newest first, each with
 * Restore. Restoring makes that content the file's, here and on every computer; what the file held becomes the newest
 * earlier version, so a restore can be undone the same way.
 */
export function VersionsDialog({ file, onClose }: { file: VersionedFile; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [history, setHistory] = useState<FileVersions | null>(null);
  const [message, setMessage] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const refArg = { root: file.root, path: file.path };

  const load = () => call('versions:list', refArg).then(setHistory, (e) => setError(messageOf(e)));
  useEffect(() => {
    ref.current?.showModal();
    void load();
  }, [file.root, file.path]);

  const restore = async (id: number, number: number) => {
    setBusy(true);
    setError(null);
    setMessage('');
    try {
      const { savedAt } = await call('versions:restore', { ...refArg, versionId: id });
      setMessage(`${file.name} holds version ${number} again (saved ${formatTime(savedAt)}). What it held is version 1 now.`);
      await load();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog ref={ref} class="versions-dialog" aria-labelledby="versions-title" onClose={onClose} data-testid="versions-dialog">
      <header class="dialog-header">
        <h2 id="versions-title">
          Version history of <span class="entry-title">“{file.name}”</span>
        </h2>
        <button type="button" class="close" onClick={() => ref.current?.close()} aria-label="Close">
          ✕
        </button>
      </header>
      <div role="status" aria-live="polite" class="dialog-message" data-testid="versions-message">
        {message}
      </div>
      {error ? (
        <div role="alert" class="error-summary" data-testid="versions-error">
          {error}
        </div>
      ) : null}
      {history === null ? (
        error ? null : <p class="muted">Loading…</p>
      ) : (
        <>
          <p>
            Current version: saved {formatTime(history.current.savedAt)}
            {history.current.size === null ? '' : `, ${formatBytes(history.current.size)}`}.
          </p>
          {history.versions.length === 0 ? (
            <p class="muted">No earlier versions: each time the file is saved, the version it replaces is kept here.</p>
          ) : (
            <table class="entries versions" data-testid="versions">
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">Saved</th>
                  <th scope="col" class="col-size">Size</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {history.versions.map((v) => (
                  <tr key={v.id}>
                    <td>{v.number}</td>
                    <td>{formatTime(v.savedAt)}</td>
                    <td class="col-size">{v.size === null ? '—' : formatBytes(v.size)}</td>
                    <td class="actions-cell">
                      <button type="button" disabled={busy} onClick={() => void restore(v.id, v.number)} aria-label={`Restore version ${v.number} of ${file.name}`}>
                        Restore
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <p class="muted small">Earlier versions are kept in the drive’s trash; Settings says for how long.</p>
        </>
      )}
    </dialog>
  );
}
