import type { FolderView, Progress, StatusSnapshot } from '../../../main/contract/index.js';
import { call } from '../api.js';
import { folderName, formatBytes, formatEta, formatWhen } from '../format.js';
import { PathText } from '../path-text.js';
import { RecentFiles } from './recent.js';

/** One folder: its name, where it is, how many items and when it last synced; its state only when it says more. */
function FolderRow({ folder, showState, showLeftOut }: { folder: FolderView; showState: boolean; showLeftOut: () => void }) {
  return (
    <li class="folder-row">
      <div class="folder-main">
        <span class="file-title">{folderName(folder.root)}</span>
        <PathText path={folder.root} class="muted small" />
      </div>
      <div class="folder-facts small">
        {showState ? <span class={`state-word state-${folder.state}`}>{folder.stateText} · </span> : null}
        {folder.synced} {folder.synced === 1 ? 'item' : 'items'}
        {folder.skipped > 0 ? (
          <>
            {' · '}
            {/* What they are and why is listed under Conflicts and errors. */}
            <button type="button" class="link-button inline" onClick={showLeftOut}>
              {folder.skipped} left out by design (links, ignored names)
            </button>
          </>
        ) : null}{' '}
        · last sync{' '}
        {folder.lastSync ? formatWhen(folder.lastSync) : 'not yet'}
        {showState && folder.detail ? <div class="muted">{folder.detail}</div> : null}
      </div>
      {folder.folderProblem === 'replaced' ? (
        <div class="folder-problem">
          <p class="small">
            Another folder is at this place now, so nothing is synced and nothing is deleted. If the synced folder moved, add it where it is now
            in Settings. To sync the folder that is here as it is — what is here goes up, what is on the drive comes down, nothing is deleted:
          </p>
          <button type="button" onClick={() => void call('folders:afresh', { root: folder.root })}>
            Sync this folder afresh
          </button>
        </div>
      ) : null}
    </li>
  );
}

export function StatusView({ status, progress, showLeftOut }: { status: StatusSnapshot; progress: Progress | null; showLeftOut: () => void }) {
  // Paused by the user, or a folder stopped at the mass-delete question.
  const paused = status.paused || status.state === 'paused' || status.state === 'waiting-for-consent';
  const showProgress = progress !== null && (progress.active || progress.transfers.length > 0) && progress.bytesTotal > 0;
  return (
    <section aria-labelledby="status-title" class="status-view">
      <h2 id="status-title" tabIndex={-1} class="sr-only">
        Status
      </h2>
      <div class={`status-line state-${status.state}`} role="status" aria-live="polite" data-testid="status-line">
        <strong>{status.stateText}</strong>
        {status.detail ? <span class="detail">{status.detail}</span> : null}
      </div>
      <div class="actions">
        <button type="button" onClick={() => void call('sync:now')} disabled={paused || status.folders.length === 0}>
          Sync now
        </button>
        {paused ? (
          <button type="button" onClick={() => void call('sync:resume')}>
            Resume syncing
          </button>
        ) : (
          <button type="button" onClick={() => void call('sync:pause')}>
            Pause syncing
          </button>
        )}
        <button type="button" onClick={() => void call('folder:open', {})} disabled={status.folders.length === 0}>
          Open folder
        </button>
      </div>
      <div class="columns">
        <div class="column">
          <section class="panel progress" aria-labelledby="progress-title">
            <h3 id="progress-title">Transfers</h3>
            {showProgress && progress ? (
              <>
                <progress value={progress.bytesDone} max={progress.bytesTotal} aria-label="Transferred so far" />
                <p class="progress-figures" data-testid="progress-figures">
                  {formatBytes(progress.bytesDone)} of {formatBytes(progress.bytesTotal)} · {formatBytes(progress.bytesPerSecond)}/s · {formatEta(progress.etaSeconds)}
                </p>
                {progress.transfers.length > 0 ? (
                  <ul class="transfers" aria-label="Current transfers">
                    {progress.transfers.map((t) => (
                      <li key={`${t.root}/${t.path}`}>
                        <span aria-hidden="true">{t.direction === 'up' ? '↑' : '↓'}</span>
                        <span class="sr-only">{t.direction === 'up' ? 'Uploading' : 'Downloading'}</span> <PathText path={t.path} />{' '}
                        <span class="muted">
                          {formatBytes(t.transferred)}
                          {t.total !== null ? ` of ${formatBytes(t.total)}` : ''}
                        </span>
                      </li>
                    ))}
                  </ul>
                ) : null}
              </>
            ) : (
              <p class="muted">{progress && progress.filesDone > 0 ? `Last round: ${progress.filesDone} files, ${formatBytes(progress.bytesDone)}.` : 'Nothing is being transferred.'}</p>
            )}
          </section>
          <section class="panel" aria-labelledby="folders-title">
            <h3 id="folders-title">Synced folders</h3>
            {status.folders.length === 0 ? (
              <p class="muted">No folder is synced. Add one in Settings.</p>
            ) : (
              <ul class="folders" data-testid="folders">
                {status.folders.map((f) => (
                  // With one folder the line above already says its state.
                  <FolderRow key={f.root} folder={f} showState={status.folders.length > 1 || f.state !== status.state} showLeftOut={showLeftOut} />
                ))}
              </ul>
            )}
          </section>
        </div>
        <div class="column">
          <RecentFiles multipleFolders={status.folders.length > 1} />
        </div>
      </div>
    </section>
  );
}
