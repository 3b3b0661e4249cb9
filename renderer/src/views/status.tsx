import type { Progress, StatusSnapshot } from '../../../main/app/contract.js';
import { call } from '../api.js';
import { formatBytes, formatEta, formatTime } from '../format.js';

export function StatusView({ status, progress }: { status: StatusSnapshot; progress: Progress | null }) {
  // Paused by the user, or a folder stopped at the mass-delete question.
  const paused = status.paused || status.state === 'paused';
  const showProgress = progress !== null && (progress.active || progress.transfers.length > 0) && progress.bytesTotal > 0;
  return (
    <section aria-labelledby="status-title">
      <h2 id="status-title" tabIndex={-1}>
        Status
      </h2>
      <div class={`status-line state-${status.state}`} role="status" aria-live="polite" data-testid="status-line">
        <strong>{status.stateText}</strong>
        {status.detail ? <span class="detail"> — {status.detail}</span> : null}
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
      <section class="progress" aria-labelledby="progress-title">
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
                    <span class="sr-only">{t.direction === 'up' ? 'Uploading' : 'Downloading'}</span> {t.path}{' '}
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
      <section aria-labelledby="folders-title">
        <h3 id="folders-title">Synced folders</h3>
        {status.folders.length === 0 ? (
          <p class="muted">No folder is synced. Choose one in Settings.</p>
        ) : (
          <table class="folders">
            <thead>
              <tr>
                <th scope="col">Folder</th>
                <th scope="col">State</th>
                <th scope="col">Items</th>
                <th scope="col">Last sync</th>
              </tr>
            </thead>
            <tbody>
              {status.folders.map((f) => (
                <tr key={f.root}>
                  <td class="path">{f.root}</td>
                  <td>
                    {f.stateText}
                    {f.detail ? <div class="muted small">{f.detail}</div> : null}
                  </td>
                  <td>{f.synced}</td>
                  <td>{formatTime(f.lastSync)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </section>
  );
}
