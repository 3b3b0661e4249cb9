import { useEffect, useState } from 'preact/hooks';
import type { ConflictItem, EntryRef, ErrorItem, FolderView } from '../../../main/contract/index.js';
import { call, messageOf, subscribe } from '../api.js';
import { baseName, folderName, formatTime } from '../format.js';
import { ViewMessages } from '../view-messages.js';
import { Where } from '../where.js';
import { LeftOutSection } from './left-out.js';

export function ProblemsView({ folders }: { folders: FolderView[] }) {
  const [conflicts, setConflicts] = useState<ConflictItem[] | null>(null);
  const [errors, setErrors] = useState<ErrorItem[] | null>(null);
  const [message, setMessage] = useState('');
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    void call('conflicts:list').then(setConflicts);
    void call('errors:list').then(setErrors);
    const offs = [
      subscribe('conflict', (c) => setConflicts((list) => [c, ...(list ?? [])])),
      subscribe('item-error', (e) => setErrors((list) => [e, ...(list ?? []).filter((x) => !(x.root === e.root && x.path === e.path && x.message === e.message))])),
    ];
    return () => offs.forEach((off) => off());
  }, []);

  const act = async (channel: 'file:open' | 'file:show', ref: EntryRef, done: string) => {
    setFailure(null);
    setMessage('');
    try {
      await call(channel, ref);
      setMessage(done);
    } catch (e) {
      setFailure(messageOf(e));
    }
  };
  const actions = (ref: EntryRef, label: string) => (
    <>
      <button type="button" onClick={() => void act('file:open', ref, `Opened: ${label}.`)} aria-label={`Open ${label}`}>
        Open
      </button>
      <button type="button" onClick={() => void act('file:show', ref, `Shown in its folder: ${label}.`)} aria-label={`Show in folder: ${label}`}>
        Show in folder
      </button>
    </>
  );

  return (
    <section aria-labelledby="problems-title">
      <h2 id="problems-title" tabIndex={-1}>
        Conflicts and errors
      </h2>
      <ViewMessages message={message} error={failure} testId="problems-message" />
      <section aria-labelledby="conflicts-title" class="panel">
        <h3 id="conflicts-title">Conflicts</h3>
        {conflicts === null ? null : conflicts.length === 0 ? (
          <p class="muted">No conflicts.</p>
        ) : (
          <ul class="problem-list" data-testid="conflict-list">
            {conflicts.map((c) => (
              <li key={c.id}>
                <p class="problem-text">
                  <strong>{baseName(c.path)}</strong> <Where root={c.root} path={c.path} /> ·{' '}
                  <time dateTime={c.at} class="muted small">
                    {formatTime(c.at)}
                  </time>
                </p>
                <p class="problem-message">
                  {baseName(c.path)} changed here and on the drive. Both versions are kept: {baseName(c.path)} now holds the drive’s version, and yours is{' '}
                  <strong>{baseName(c.copyPath)}</strong> beside it. Open both, keep what you need, and delete the other.
                </p>
                <div class="row-actions wrap">
                  <span class="version-label small">Drive’s version:</span>
                  {actions({ root: c.root, path: c.path }, `the drive’s version of ${baseName(c.path)}`)}
                  <span class="version-label small">Your version:</span>
                  {actions({ root: c.root, path: c.copyPath }, `your version ${baseName(c.copyPath)}`)}
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="errors-title" class="panel">
        <h3 id="errors-title">Errors</h3>
        {errors === null ? null : errors.length === 0 ? (
          <p class="muted">No errors.</p>
        ) : (
          <>
            <ul class="problem-list" data-testid="error-list">
              {errors.map((e) => (
                <li key={e.id}>
                  <p class="problem-text">
                    <strong>{e.path ? baseName(e.path) : folderName(e.root)}</strong> <Where root={e.root} path={e.path} /> ·{' '}
                    <time dateTime={e.at} class="muted small">
                      {formatTime(e.at)}
                    </time>
                  </p>
                  <p class="problem-message">{e.message}</p>
                  {e.technical && e.technical !== e.message ? (
                    <details class="small muted">
                      <summary>Details</summary>
                      <code>{e.technical}</code>
                    </details>
                  ) : null}
                  {e.path ? <div class="row-actions wrap">{actions({ root: e.root, path: e.path }, baseName(e.path))}</div> : null}
                </li>
              ))}
            </ul>
            <button
              type="button"
              onClick={() => {
                void call('errors:clear').then(() => setErrors([]));
              }}
            >
              Clear errors
            </button>
          </>
        )}
      </section>
      <LeftOutSection folders={folders} />
    </section>
  );
}
