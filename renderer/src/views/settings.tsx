import { useEffect, useState } from 'preact/hooks';
import type { Settings } from '../../../main/app/contract.js';
import { call, fieldsOf, messageOf, subscribe } from '../api.js';

export function SettingsView() {
  const [saved, setSaved] = useState<Settings | null>(null);
  const [draft, setDraft] = useState<Settings | null>(null);
  const [foldersText, setFoldersText] = useState('');
  const [message, setMessage] = useState('');
  const [error, setError] = useState<{ text: string; fields: Record<string, string> } | null>(null);
  const [busy, setBusy] = useState(false);

  const take = (s: Settings) => {
    setSaved(s);
    setDraft(s);
    setFoldersText(s.folders.join('\n'));
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
    const folders = foldersText
      .split('\n')
      .map((f) => f.trim())
      .filter(Boolean);
    try {
      const next = await call('settings:set', {
        folders,
        pollIntervalSeconds: draft.pollIntervalSeconds,
        concurrency: draft.concurrency,
        bandwidthLimitKBps: draft.bandwidthLimitKBps,
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
  const fieldError = (name: string) => error?.fields[name];

  return (
    <section aria-labelledby="settings-title">
      <h2 id="settings-title" tabIndex={-1}>
        Settings
      </h2>
      <form onSubmit={submit} class="settings" noValidate>
        {error ? (
          <div class="error-summary" role="alert">
            {error.text}
          </div>
        ) : null}
        <div class="field">
          <label for="settings-folders">Synced folders</label>
          <textarea
            id="settings-folders"
            rows={3}
            value={foldersText}
            onInput={(e) => setFoldersText((e.currentTarget as HTMLTextAreaElement).value)}
            aria-invalid={fieldError('folders') ? 'true' : undefined}
            aria-describedby="settings-folders-hint"
          />
          <p class="hint" id="settings-folders-hint">
            {fieldError('folders') ?? 'One full path per line. A folder that does not exist is created.'}
          </p>
        </div>
        <div class="grid">
          <div class="field">
            <label for="settings-poll">Check the drive every (seconds)</label>
            <input id="settings-poll" type="number" min={5} max={86400} value={draft.pollIntervalSeconds} onInput={(e) => set('pollIntervalSeconds', num(e))} />
          </div>
          <div class="field">
            <label for="settings-concurrency">Transfers at once</label>
            <input id="settings-concurrency" type="number" min={1} max={16} value={draft.concurrency} onInput={(e) => set('concurrency', num(e))} />
          </div>
          <div class="field">
            <label for="settings-bandwidth">Bandwidth limit (KB/s, 0 for none)</label>
            <input
              id="settings-bandwidth"
              type="number"
              min={0}
              value={draft.bandwidthLimitKBps}
              onInput={(e) => set('bandwidthLimitKBps', num(e))}
              aria-describedby="settings-bandwidth-hint"
            />
            <p class="hint" id="settings-bandwidth-hint">
              Applies to uploads and downloads at once, including transfers under way.
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
