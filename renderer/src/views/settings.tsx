import { useEffect, useState } from 'preact/hooks';
import type { FirstSyncPreview, FolderView, Settings } from '../../../main/contract/index.js';
import { call, fieldsOf, messageOf, subscribe } from '../api.js';
import { folderOf, type Shown } from '../folder-state.js';
import { folderName, formatWhen } from '../format.js';
import { PathText } from '../path-text.js';
import { Since } from '../since.js';
import { useChecker } from './check-files.js';
import { useChooser } from './choose-folders.js';
import { FirstSyncDialog } from './first-sync.js';

const DEFAULT_SHARED_FOLDER = 'Shared with me';

/** Where a synced folder keeps what others share with the account: a folder at its top, renamed or turned off here. */
function SharedFolderSetting({ id, root, name, onChange }: { id: string; root: string; name: string | null; onChange: (settings: Settings) => void }) {
  const [on, setOn] = useState(name !== null);
  const [text, setText] = useState(name ?? DEFAULT_SHARED_FOLDER);
  const [message, setMessage] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setOn(name !== null);
    setText(name ?? DEFAULT_SHARED_FOLDER);
  }, [name]);
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setMessage('');
    try {
      const next = await call('settings:shared-folder', { root, name: on ? text : null });
      onChange(next);
      const now = next.sharedFolders.find((f) => f.root === root)?.name ?? null;
      setMessage(now === null ? `What others share with you is not synced into ${folderName(root)}.` : `What others share with you goes into “${now}” in ${folderName(root)}.`);
    } catch (err) {
      setError(fieldsOf(err).name ?? messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="shared-folder" onSubmit={save} noValidate aria-labelledby={`${id}-title`}>
      <p id={`${id}-title`} class="small shared-folder-title">
        What others share with you, in {folderName(root)}
      </p>
      <div class="checkbox">
        <input id={`${id}-on`} type="checkbox" checked={on} onChange={(e) => setOn((e.currentTarget as HTMLInputElement).checked)} />
        <label for={`${id}-on`}>Sync it into a folder of {folderName(root)}</label>
      </div>
      <div class="field">
        <label for={`${id}-name`}>Folder name</label>
        <input
          id={`${id}-name`}
          type="text"
          value={text}
          disabled={!on}
          maxLength={200}
          onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? `${id}-error` : `${id}-hint`}
        />
        {error ? (
          <p class="field-error" id={`${id}-error`}>
            {error}
          </p>
        ) : (
          <p class="hint" id={`${id}-hint`}>
            At the top of {folderName(root)}, one folder per person who shares, where the drive says who.
          </p>
        )}
      </div>
      <div class="actions">
        <button type="submit" disabled={busy} aria-label={`Save the shared folder of ${folderName(root)}`}>
          Save
        </button>
        <span role="status" aria-live="polite" data-testid={`${id}-message`}>
          {message}
        </span>
      </div>
    </form>
  );
}

const sharedNameOf = (shared: Settings['sharedFolders'], root: string) => {
  const own = shared.find((f) => f.root === root);
  return own ? own.name : DEFAULT_SHARED_FOLDER;
};

/** The synced folders, each with its state; added with the desktop's folder picker, removed one by one. */
function SyncedFolders({
  folders,
  sharedFolders,
  states,
  shown,
  onChange,
}: {
  folders: string[];
  sharedFolders: Settings['sharedFolders'];
  states: FolderView[];
  shown: Shown;
  onChange: (settings: Settings) => void;
}) {
  const [message, setMessage] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { open: choose, dialog: chooser } = useChooser();
  const { open: check, dialog: checker } = useChecker();
  const [preview, setPreview] = useState<FirstSyncPreview | null>(null);
  const save = async (next: string[], said: string) => {
    setBusy(true);
    setError(null);
    setMessage('');
    try {
      onChange(await call('settings:set', { folders: next }));
      setMessage(said);
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  const add = async () => {
    setError(null);
    setMessage('');
    let picked: string | null;
    try {
      picked = await call('folder:pick');
    } catch (e) {
      setError(messageOf(e));
      return;
    }
    if (!picked) return;
    if (folders.includes(picked)) {
      setMessage(`${folderName(picked)} is synced already.`);
      return;
    }
    // A folder with files in it: what its first sync would do is shown first (a dry run), and the person says go.
    try {
      const found = await call('folders:preview', { root: picked });
      if (!found.empty) {
        setPreview(found);
        return;
      }
    } catch (e) {
      setError(messageOf(e));
      return;
    }
    await save([...folders, picked], `${folderName(picked)} added: its files start syncing now.`);
  };
  const start = (root: string) => {
    setPreview(null);
    void save([...folders, root], `${folderName(root)} added: its files start syncing now.`);
  };
  const remove = (root: string) =>
    void save(
      folders.filter((f) => f !== root),
      `${folderName(root)} is no longer synced. Its files stay on this computer and on the drive.`,
    );
  return (
    <section aria-labelledby="settings-folders-title" class="panel">
      <h3 id="settings-folders-title">Synced folders</h3>
      {error ? (
        <p role="alert" class="error-summary">
          {error}
        </p>
      ) : null}
      {folders.length === 0 ? (
        <p class="muted">No folder is synced.</p>
      ) : (
        <ul class="folders" data-testid="settings-folders">
          {folders.map((root, index) => {
            const state = states.find((s) => s.root === root);
            const row = folderOf(shown, root);
            return (
              <li key={root} class="folder-row" data-state={row?.state}>
                <div class="folder-main">
                  <span class="file-title">{folderName(root)}</span>
                  <PathText path={root} class="muted small" />
                </div>
                <div class="folder-facts small">
                  {state && row ? (
                    <>
                      <span class={`state-word state-${row.state}`}>{row.words}</span>
                      <Since shown={row} /> · {state.synced} {state.synced === 1 ? 'item' : 'items'} · last sync{' '}
                      {state.lastSync ? formatWhen(state.lastSync) : 'not yet'}
                      {row.detail ? <div class="muted">{row.detail}</div> : null}
                    </>
                  ) : (
                    <span class="muted">Not started</span>
                  )}
                </div>
                <div class="row-actions wrap">
                  <button
                    type="button"
                    class={state?.needsSpace ? 'primary' : undefined}
                    onClick={(e) => choose(root, e)}
                    aria-label={`Choose folders of ${folderName(root)}`}
                  >
                    Choose folders…
                  </button>
                  <button type="button" onClick={(e) => check(root, e)} aria-label={`Check files of ${folderName(root)}`}>
                    Check files…
                  </button>
                  <button type="button" onClick={() => remove(root)} disabled={busy} aria-label={`Stop syncing ${folderName(root)}`}>
                    Stop syncing
                  </button>
                </div>
                <SharedFolderSetting
                  id={`shared-folder-${index}`}
                  root={root}
                  name={sharedNameOf(sharedFolders, root)}
                  onChange={onChange}
                />
              </li>
            );
          })}
        </ul>
      )}
      <div class="actions">
        <button type="button" onClick={() => void add()} disabled={busy}>
          Add a folder…
        </button>
        <span role="status" aria-live="polite" data-testid="folders-message">
          {message}
        </span>
      </div>
      {chooser}
      {checker}
      {preview ? (
        <FirstSyncDialog
          preview={preview}
          onStart={() => start(preview.root)}
          onCancel={() => {
            setPreview(null);
            setMessage(`${folderName(preview.root)} was not added.`);
          }}
        />
      ) : null}
    </section>
  );
}

export function SettingsView({ folderStates, shown }: { folderStates: FolderView[]; shown: Shown }) {
  const [saved, setSaved] = useState<Settings | null>(null);
  const [draft, setDraft] = useState<Settings | null>(null);
  const [message, setMessage] = useState('');
  const [error, setError] = useState<{ text: string; fields: Record<string, string> } | null>(null);
  const [busy, setBusy] = useState(false);

  const take = (s: Settings) => {
    setSaved(s);
    setDraft(s);
  };
  useEffect(() => {
    void call('settings:get').then(take);
    return subscribe('settings', (s) => setSaved(s));
  }, []);

  if (!draft || !saved) return <p class="muted">Loading…</p>;
  const set = <K extends keyof Settings>(key: K, value: Settings[K]) => setDraft({ ...draft, [key]: value });
  const num = (e: Event) => Number((e.currentTarget as HTMLInputElement).value);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setMessage('');
    try {
      const next = await call('settings:set', {
        pollIntervalSeconds: draft.pollIntervalSeconds,
        keepVersionsDays: draft.keepVersionsDays,
        concurrency: draft.concurrency,
        bandwidthUpKBps: draft.bandwidthUpKBps,
        bandwidthDownKBps: draft.bandwidthDownKBps,
        ignoreRules: draft.ignoreRules,
        startAtLogin: draft.startAtLogin,
        paused: draft.paused,
      });
      take(next);
      setMessage('Settings saved.');
    } catch (err) {
      setError({ text: messageOf(err), fields: fieldsOf(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="settings-title">
      <h2 id="settings-title" tabIndex={-1}>
        Settings
      </h2>
      <SyncedFolders folders={saved.folders} sharedFolders={saved.sharedFolders} states={folderStates} shown={shown} onChange={(next) => setSaved(next)} />
      <form onSubmit={submit} class="settings panel" noValidate aria-labelledby="settings-sync-title">
        <h3 id="settings-sync-title">Syncing</h3>
        {error ? (
          <div class="error-summary" role="alert">
            {error.text}
          </div>
        ) : null}
        <div class="grid">
          <div class="field">
            <label for="settings-poll">Check the drive every (seconds)</label>
            <input id="settings-poll" type="number" min={5} max={86400} value={draft.pollIntervalSeconds} onInput={(e) => set('pollIntervalSeconds', num(e))} />
          </div>
          <div class="field">
            <label for="settings-concurrency">Transfers at once</label>
            <input id="settings-concurrency" type="number" min={1} max={16} value={draft.concurrency} onInput={(e) => set('concurrency', num(e))} />
          </div>
          {(['up', 'down'] as const).map((side) => {
            const key = side === 'up' ? 'bandwidthUpKBps' : 'bandwidthDownKBps';
            return (
              <div class="field" key={side}>
                <label for={`settings-limit-${side}`}>{side === 'up' ? 'Upload' : 'Download'} limit (KB/s, 0 for none)</label>
                <input
                  id={`settings-limit-${side}`}
                  type="number"
                  min={0}
                  value={draft[key]}
                  onInput={(e) => set(key, num(e))}
                  aria-describedby="settings-bandwidth-hint"
                />
              </div>
            );
          })}
          <div class="field">
            <p class="hint" id="settings-bandwidth-hint">
              Apply at once, including transfers under way; the same as drivesync sync --limit-up and --limit-down.
            </p>
          </div>
          <div class="field">
            <label for="settings-versions">Keep earlier versions of files for (days)</label>
            <input
              id="settings-versions"
              type="number"
              min={1}
              max={36500}
              value={draft.keepVersionsDays ?? ''}
              placeholder="always"
              onInput={(e) => {
                const text = (e.currentTarget as HTMLInputElement).value.trim();
                set('keepVersionsDays', text === '' ? null : Number(text));
              }}
              aria-describedby="settings-versions-hint"
            />
            <p class="hint" id="settings-versions-hint">
              Each save keeps the version it replaces in the drive’s trash. Empty keeps them until the trash is emptied; a file’s newest version is
              always kept.
            </p>
          </div>
        </div>
        <div class="field">
          <label for="settings-ignore">Ignore rules</label>
          <textarea
            id="settings-ignore"
            rows={5}
            value={draft.ignoreRules}
            onInput={(e) => set('ignoreRules', (e.currentTarget as HTMLTextAreaElement).value)}
            aria-describedby="settings-ignore-hint"
            spellcheck={false}
          />
          <p class="hint" id="settings-ignore-hint">
            gitignore syntax, kept as .syncignore in each synced folder. Temporary files are never synced.
          </p>
        </div>
        <div class="field checkbox">
          <input id="settings-login" type="checkbox" checked={draft.startAtLogin} onChange={(e) => set('startAtLogin', (e.currentTarget as HTMLInputElement).checked)} />
          <label for="settings-login">Start drivesync when I log in</label>
        </div>
        <div class="field checkbox">
          <input id="settings-paused" type="checkbox" checked={draft.paused} onChange={(e) => set('paused', (e.currentTarget as HTMLInputElement).checked)} />
          <label for="settings-paused">Pause syncing</label>
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Save settings
          </button>
          <span role="status" aria-live="polite" data-testid="settings-message">
            {message}
          </span>
        </div>
      </form>
    </section>
  );
}
