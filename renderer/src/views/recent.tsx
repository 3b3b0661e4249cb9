import { useEffect, useRef, useState } from 'preact/hooks';
import type { RecentFile } from '../../../main/contract/index.js';
import { call, messageOf, subscribe } from '../api.js';
import { folderName, formatWhen, parentOf } from '../format.js';
import { Icon } from '../icons.js';
import { PathText } from '../path-text.js';
import { ViewMessages } from '../view-messages.js';
import { VersionsDialog } from './versions-dialog.js';
import { ITEM_STATE_WORDS, itemStateIcon } from '../item-state.js';

/** Files listed before "Show all". */
const SHOWN = 8;


/** The files the engines touched lately, each with its state, Copy link and Show in folder. */
export function RecentFiles({ multipleFolders }: { multipleFolders: boolean }) {
  const [files, setFiles] = useState<RecentFile[] | null>(null);
  const [message, setMessage] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [showAll, setShowAll] = useState(false);
  const [history, setHistory] = useState<RecentFile | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const load = () => void call('recent:list').then(setFiles, (e) => setError(messageOf(e)));
    // Bursts of activity (a whole folder uploaded) reload the list once.
    const soon = () => {
      timer ??= setTimeout(() => {
        timer = null;
        load();
      }, 300);
    };
    load();
    const offs = [subscribe('activity', soon), subscribe('conflict', soon), subscribe('item-error', soon)];
    return () => {
      offs.forEach((off) => off());
      if (timer) clearTimeout(timer);
    };
  }, []);

  const act = async (work: () => Promise<string>) => {
    setError(null);
    setMessage('');
    try {
      setMessage(await work());
    } catch (e) {
      setError(messageOf(e));
    }
  };
  const copyLink = (f: RecentFile) =>
    void act(async () => {
      await call('link:copy', { root: f.root, path: f.path });
      return `Link to ${f.name} copied. Its address changes when the file is saved again; drivesync tells you the new one.`;
    });
  const show = (f: RecentFile) =>
    void act(async () => {
      await call('file:show', { root: f.root, path: f.path });
      return `${f.name} shown in its folder.`;
    });

  return (
    <section aria-labelledby="recent-title" class="panel recent">
      <h3 id="recent-title">Recent files</h3>
      <ViewMessages message={message} error={error} testId="recent-message" />
      {files === null ? (
        <p class="muted">Loading…</p>
      ) : files.length === 0 ? (
        <p class="muted">No file has been synced yet.</p>
      ) : (
        <ul class="recent-list" data-testid="recent-list">
          {(showAll ? files : files.slice(0, SHOWN)).map((f) => {
            const where = [multipleFolders ? folderName(f.root) : '', parentOf(f.path)].filter(Boolean).join('/');
            return (
              <li key={`${f.root}\u0000${f.path}`} class={`recent-item state-${f.state}`}>
                <Icon name={itemStateIcon(f.state)} class={`state-icon state-${f.state}`} />
                <div class="recent-main">
                  <span class="file-title">{f.name}</span>
                  <span class="muted small">
                    <span class={`state-word state-${f.state}`}>{ITEM_STATE_WORDS[f.state]}</span>
                    {' · '}
                    {f.description} · {formatWhen(f.at)}
                    {where ? (
                      <>
                        {' · in '}
                        <PathText path={where} />
                      </>
                    ) : null}
                  </span>
                  {f.problem ? <span class="problem small">{f.problem}</span> : null}
                </div>
                <div class="row-actions">
                  <button type="button" onClick={() => copyLink(f)} aria-label={`Copy link to ${f.name}`} disabled={f.state === 'error'}>
                    Copy link
                  </button>
                  <button type="button" onClick={() => show(f)} aria-label={`Show in folder: ${f.name}`}>
                    Show in folder
                  </button>
                  <button
                    type="button"
                    onClick={(e) => {
                      opener.current = e.currentTarget as HTMLElement;
                      setHistory(f);
                    }}
                    aria-label={`Version history of ${f.name}`}
                    disabled={f.state === 'error'}
                  >
                    Version history…
                  </button>
                </div>
              </li>
            );
          })}
        </ul>
      )}
      {files !== null && files.length > SHOWN ? (
        <button type="button" class="link-button" onClick={() => setShowAll(!showAll)} aria-expanded={showAll ? 'true' : 'false'}>
          {showAll ? 'Show fewer' : `Show all ${files.length}`}
        </button>
      ) : null}
      {history ? (
        <VersionsDialog
          file={history}
          onClose={() => {
            setHistory(null);
            queueMicrotask(() => opener.current?.focus());
          }}
        />
      ) : null}
    </section>
  );
}
