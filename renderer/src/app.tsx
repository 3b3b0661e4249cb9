import { useEffect, useRef, useState } from 'preact/hooks';
import type { ActivityItem, OpenView, Progress, StatusSnapshot } from '../../main/contract/index.js';
import { call, subscribe } from './api.js';
import { shownState } from './folder-state.js';
import { ActivityView } from './views/activity.js';
import { DeletionPrompt } from './views/deletions.js';
import { FilesView } from './views/files.js';
import { LEFT_OUT_HEADING } from './views/left-out.js';
import { ProblemsView } from './views/problems.js';
import { SettingsView } from './views/settings.js';
import { SignInView } from './views/sign-in.js';
import { StatusView } from './views/status.js';

type View = 'status' | 'activity' | 'problems' | 'files' | 'settings';

const VIEWS: ReadonlyArray<{ id: View; label: string }> = [
  { id: 'status', label: 'Status' },
  { id: 'activity', label: 'Activity' },
  { id: 'problems', label: 'Conflicts and errors' },
  { id: 'files', label: 'Files' },
  { id: 'settings', label: 'Settings' },
];

export function App() {
  const [status, setStatus] = useState<StatusSnapshot | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [view, setView] = useState<View>('status');
  const [problemCount, setProblemCount] = useState(0);
  /** The drive was reached again after it could not be: said once, on Status, until dismissed or offline again. */
  const [backOnline, setBackOnline] = useState<ActivityItem | null>(null);
  const [opened, setOpened] = useState<OpenView | null>(null);
  const mainRef = useRef<HTMLElement>(null);

  useEffect(() => {
    const offs = [
      subscribe('state', setStatus),
      subscribe('progress', setProgress),
      subscribe('conflict', () => setProblemCount((n) => n + 1)),
      subscribe('item-error', () => setProblemCount((n) => n + 1)),
      subscribe('activity', (item) => {
        if (item.kind === 'back-online') setBackOnline(item);
      }),
      // The file manager's "Share…" or "Version history…": the Files view opens its dialog on the item.
      subscribe('open', (request) => {
        setOpened(request);
        setView('files');
      }),
    ];
    void call('status:get').then(setStatus);
    void call('progress:get').then(setProgress);
    return () => offs.forEach((off) => off());
  }, []);
  const offlineSince = status?.offline?.since;
  useEffect(() => {
    if (offlineSince) setBackOnline(null);
  }, [offlineSince]);

  /** Opens a view; `heading` names the heading inside it to land on, when not the view's own. */
  const choose = (next: View, heading?: string) => {
    setView(next);
    if (next === 'problems') setProblemCount(0);
    // Keyboard and screen-reader users land on the new view's heading (or the one asked for).
    queueMicrotask(() => mainRef.current?.querySelector<HTMLElement>(heading ? `#${heading}` : 'h2')?.focus());
  };

  if (!status) return <p class="loading">Loading…</p>;
  if (!status.account) return <SignInView />;
  // One state for the badge, the status line, the folder rows and the transfers, worked out once.
  const shown = shownState(status, progress);

  return (
    <div class="shell">
      <header class="topbar">
        <span class="brand">drivesync</span>
        {view !== 'status' ? (
          // The status view says the state in its own first line; elsewhere this badge does.
          <span class={`badge state-${shown.state}`} data-testid="state-badge" data-state={shown.state}>
            {shown.words}
          </span>
        ) : null}
        <span class="account" title={`${status.account.email} on ${status.account.server}`}>
          {status.account.email} <span class="muted">on {status.account.server.replace(/^https?:\/\//, '')}</span>
        </span>
        <button type="button" class="link-button" onClick={() => void call('auth:sign-out')}>
          Sign out
        </button>
      </header>
      <nav class="tabs" aria-label="Views">
        <ul>
          {VIEWS.map((v) => (
            <li key={v.id}>
              <button type="button" aria-current={view === v.id ? 'page' : undefined} onClick={() => choose(v.id)} data-view={v.id}>
                {v.label}
                {v.id === 'problems' && problemCount > 0 ? <span class="count" aria-label={`${problemCount} new`}>{problemCount}</span> : null}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <main ref={mainRef} id="main">
        {view === 'status' && (
          <StatusView
            status={status}
            shown={shown}
            progress={progress}
            showLeftOut={() => choose('problems', LEFT_OUT_HEADING)}
            backOnline={backOnline}
            dismissBackOnline={() => setBackOnline(null)}
          />
        )}
        {view === 'activity' && <ActivityView />}
        {view === 'problems' && <ProblemsView folders={status.folders} />}
        {view === 'files' && <FilesView folders={status.folders.map((f) => f.root)} opened={opened} onOpened={() => setOpened(null)} />}
        {view === 'settings' && <SettingsView folderStates={status.folders} shown={shown} />}
      </main>
      <DeletionPrompt pending={status.pendingDeletions} />
    </div>
  );
}
