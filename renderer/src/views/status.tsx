import type { ActivityItem, FolderView, OverallState, Progress, StatusSnapshot } from '../../../main/contract/index.js';
import { call } from '../api.js';
import { folderOf, type Shown, type ShownState } from '../folder-state.js';
import { folderName, formatBytes, formatEta, formatWhen } from '../format.js';
import { PathText } from '../path-text.js';
import { Since } from '../since.js';
import { useChooser } from './choose-folders.js';
import { RecentFiles } from './recent.js';

/** One folder: its name, where it is, how many items and when it last synced; its state only when it says more. */
function FolderRow({
  folder,
  shown,
  showState,
  showLeftOut,
  choose,
}: {
  folder: FolderView;
  shown: ShownState;
  showState: boolean;
  showLeftOut: () => void;
  choose: (root: string, event: Event) => void;
}) {
  return (
    <li class="folder-row" data-state={shown.state}>
      <div class="folder-main">
        <span class="file-title">{folderName(folder.root)}</span>
        <PathText path={folder.root} class="muted small" />
      </div>
      <div class="folder-facts small">
        {showState ? (
          <>
            <span class={`state-word state-${shown.state}`}>{shown.words}</span>
            <Since shown={shown} />
            {' · '}
          </>
        ) : null}
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
        {showState && shown.detail ? <div class="muted">{shown.detail}</div> : null}
      </div>
      {folder.needsSpace && shown.state === 'error' ? (
        <div class="folder-problem" data-testid="needs-space">
          <p class="small">What the drive holds does not fit on this disk. Leave folders out of this computer to sync the rest:</p>
          <button type="button" class="primary" onClick={(e) => choose(folder.root, e)} aria-label={`Choose folders of ${folderName(folder.root)}`}>
            Choose folders…
          </button>
        </div>
      ) : null}
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

/** What the transfers panel says when no bytes are moving, for each state: the state said the panel's way. */
const STILL_WORDS: Record<OverallState, string> = {
  'signed-out': 'Nothing is being transferred.',
  starting: 'Nothing is being transferred yet.',
  idle: 'Nothing is being transferred.',
  scanning: 'Looking for changes; nothing is being transferred yet.',
  syncing: 'Nothing is being transferred right now.',
  paused: 'Paused: nothing is transferred until you resume.',
  'waiting-for-consent': 'Nothing is deleted until you answer.',
  stopped: 'Stopped: nothing is being transferred.',
  offline: 'Offline: transfers go on when the drive server can be reached again.',
  error: 'Nothing is being transferred.',
};

function Transfers({ shown, progress }: { shown: Shown; progress: Progress | null }) {
  if (shown.transferring && progress) {
    return (
      <div data-testid="transfers-now" data-state="syncing">
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
      </div>
    );
  }
  // What the last transfers moved, once everything is quiet again; otherwise the state in the panel's words.
  const last = shown.state === 'idle' && progress && progress.filesDone > 0;
  return (
    <p class="muted" data-testid="transfers-now" data-state={shown.state}>
      {last ? `Last sync: ${progress.filesDone} ${progress.filesDone === 1 ? 'file' : 'files'}, ${formatBytes(progress.bytesDone)}.` : STILL_WORDS[shown.state]}
    </p>
  );
}

/** The drive reached again after it could not be, said once under the status line. */
function BackOnline({ item, many, dismiss }: { item: ActivityItem; many: boolean; dismiss: () => void }) {
  return (
    <p class="back-online" role="status" data-testid="back-online">
      <span>
        {many ? `${folderName(item.root)}: ` : ''}
        {item.description}
      </span>{' '}
      <button type="button" class="link-button" onClick={dismiss} aria-label="Dismiss the back online note">
        Dismiss
      </button>
    </p>
  );
}

export function StatusView({
  status,
  shown,
  progress,
  showLeftOut,
  backOnline,
  dismissBackOnline,
}: {
  status: StatusSnapshot;
  shown: Shown;
  progress: Progress | null;
  showLeftOut: () => void;
  backOnline: ActivityItem | null;
  dismissBackOnline: () => void;
}) {
  // Paused by the user, or a folder stopped at the mass-delete question.
  const { paused } = shown;
  const { open: choose, dialog: chooser } = useChooser();
  return (
    <section aria-labelledby="status-title" class="status-view">
      <h2 id="status-title" tabIndex={-1} class="sr-only">
        Status
      </h2>
      <div class={`status-line state-${shown.state}`} role="status" aria-live="polite" data-testid="status-line" data-state={shown.state}>
        <strong>{shown.words}</strong>
        <Since shown={shown} />
        {shown.detail ? <span class="detail">{shown.detail}</span> : null}
      </div>
      {backOnline && shown.state !== 'offline' ? <BackOnline item={backOnline} many={status.folders.length > 1} dismiss={dismissBackOnline} /> : null}
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
            <Transfers shown={shown} progress={progress} />
          </section>
          <section class="panel" aria-labelledby="folders-title">
            <h3 id="folders-title">Synced folders</h3>
            {status.folders.length === 0 ? (
              <p class="muted">No folder is synced. Add one in Settings.</p>
            ) : (
              <ul class="folders" data-testid="folders">
                {status.folders.map((f) => {
                  const row = folderOf(shown, f.root) ?? shown;
                  // With one folder the line above already says its state.
                  return <FolderRow key={f.root} folder={f} shown={row} showState={status.folders.length > 1 || row.state !== shown.state} showLeftOut={showLeftOut} choose={choose} />;
                })}
              </ul>
            )}
          </section>
        </div>
        <div class="column">
          <RecentFiles multipleFolders={status.folders.length > 1} />
        </div>
      </div>
      {chooser}
    </section>
  );
}
