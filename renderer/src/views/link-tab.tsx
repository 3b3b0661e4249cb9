import { useEffect, useRef, useState } from 'preact/hooks';
import type { EntryRef, LinkView, SyncedEntry } from '../../../main/contract/index.js';
import { call } from '../api.js';

/** yyyy-mm-dd of an ISO time, for a date input. */
const dateOf = (iso: string | null) => (iso ? iso.slice(0, 10) : '');
/** The end of the chosen day, local time, as ISO. */
const endOfDay = (date: string) => new Date(`${date}T23:59:59`).toISOString();

/**
 * The share dialog's Link tab: the address, and the link's settings. A password that is set is said so, and is
 * changed or removed only by its own buttons: saving the other settings keeps it. The drive keeps only a hash of it
 * and drops it when an update does not carry it, so the host sends again the password it set; one it does not know
 * (set elsewhere, or before the app last started) is asked for before the other settings are saved.
 */
export function LinkTab({
  entry,
  link,
  onLink,
  busy,
  run,
  fieldError,
}: {
  entry: SyncedEntry;
  /** undefined while it loads; null when the entry has no link. */
  link: LinkView | null | undefined;
  onLink: (link: LinkView | null) => void;
  busy: boolean;
  run: (work: () => Promise<string>) => Promise<void>;
  fieldError: (name: string) => string | undefined;
}) {
  const ref: EntryRef = { root: entry.root, path: entry.path };
  /** The password of a new link, or the new password while it is being changed. */
  const [password, setPassword] = useState('');
  const [changing, setChanging] = useState(false);
  /** A password the host does not know, given again to keep it. */
  const [current, setCurrent] = useState('');
  const [expiry, setExpiry] = useState('');
  const [allowDownload, setAllowDownload] = useState(true);
  const [allowEdit, setAllowEdit] = useState(false);
  const changeButton = useRef<HTMLButtonElement>(null);
  const newPassword = useRef<HTMLInputElement>(null);
  const loaded = useRef(false);
  /** The password's button gets the focus back once the dialog is not busy any more (after a save, a removal, Cancel). */
  const [refocus, setRefocus] = useState(false);

  // The form starts from the link as the drive has it (once: what the user changes stays until saved).
  useEffect(() => {
    if (!link || loaded.current) return;
    loaded.current = true;
    setExpiry(dateOf(link.expiresAt));
    setAllowDownload(link.allowDownload);
    setAllowEdit(link.allowEdit);
  }, [link]);
  useEffect(() => {
    if (changing) newPassword.current?.focus();
  }, [changing]);
  useEffect(() => {
    if (!refocus || busy || !changeButton.current) return;
    changeButton.current.focus();
    setRefocus(false);
  }, [refocus, busy, changing]);

  const settings = () => ({ ...ref, expiresAt: expiry ? endOfDay(expiry) : null, allowDownload, allowEdit });
  const afterSave = (saved: LinkView) => {
    onLink(saved);
    setPassword('');
    setCurrent('');
    setChanging(false);
  };

  const save = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      if (!link) {
        afterSave(await call('link:create', { ...settings(), ...(password !== '' ? { password } : {}) }));
        return 'Link created.';
      }
      if (changing && password === '') throw new Error('Enter the new password, or cancel the change.');
      // No password sent keeps the one the link has; a new one changes it; one not known here is given again.
      const given = changing ? { password } : link.hasPassword && !link.passwordKnown && current !== '' ? { password: current } : {};
      const saved = await call('link:update', { ...settings(), ...given });
      afterSave(saved);
      if (changing) setRefocus(true);
      return changing ? (link.hasPassword ? 'Link updated: its password is changed.' : 'Link updated: it has a password now.') : 'Link updated.';
    });
  };
  const removePassword = () =>
    void run(async () => {
      // Only the password changes: the rest as the drive has it, not as the form may have been edited.
      afterSave(await call('link:update', { ...ref, password: null, expiresAt: link!.expiresAt, allowDownload: link!.allowDownload, allowEdit: link!.allowEdit }));
      setRefocus(true);
      return 'Password removed: anyone with the link can open it.';
    });
  const deleteLink = () =>
    void run(async () => {
      await call('link:delete', ref);
      onLink(null);
      loaded.current = false;
      return 'Link deleted: it no longer opens.';
    });
  const copyLink = () =>
    void run(async () => {
      await call('link:copy', ref);
      return 'Link copied to the clipboard.';
    });

  if (link === undefined) return <p class="muted">Loading…</p>;
  const unknown = link !== null && link.hasPassword && !link.passwordKnown && !changing;
  return (
    <>
      {link ? (
        <div class="link-box">
          <label for="link-url">Anyone with this link{link.hasPassword ? ' and the password' : ''} can open it</label>
          <div class="row">
            <input id="link-url" type="text" readOnly value={link.url} data-testid="link-url" onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
            <button type="button" onClick={copyLink}>
              Copy
            </button>
          </div>
          <p class="muted small">
            {link.expiresAt ? `Expires ${new Date(link.expiresAt).toLocaleDateString()}. ` : 'Never expires. '}
            {link.allowDownload ? 'Download allowed. ' : 'No download. '}
            {link.allowEdit ? 'Editing allowed.' : ''}
          </p>
          {entry.type === 'file' ? (
            <p class="hint" data-testid="link-changes">
              On this drive each save makes a new entry, so the address changes when the file is saved again; drivesync gives the new version a link
              with the same settings (a password cannot be carried) and tells you its address.
            </p>
          ) : null}
        </div>
      ) : (
        <p class="muted">No link yet.</p>
      )}
      <form onSubmit={save} class="link-form">
        {link ? (
          <div class="password-state" role="group" aria-labelledby="link-password-state">
            <p id="link-password-state" data-testid="link-password-state">
              <strong>Password:</strong> {link.hasPassword ? 'set' : 'none'}
            </p>
            {changing ? null : (
              <button type="button" ref={changeButton} onClick={() => setChanging(true)} disabled={busy}>
                {link.hasPassword ? 'Change…' : 'Add a password…'}
              </button>
            )}
            {link.hasPassword ? (
              <button type="button" class="danger" onClick={removePassword} disabled={busy}>
                Remove password
              </button>
            ) : null}
          </div>
        ) : null}
        {!link || changing ? (
          <div class="field">
            <label for="link-password">{link ? 'New password' : 'Password'}</label>
            <div class="row">
              <input
                id="link-password"
                ref={newPassword}
                type="password"
                autocomplete="new-password"
                value={password}
                onInput={(e) => setPassword((e.currentTarget as HTMLInputElement).value)}
                aria-describedby="link-password-hint"
                aria-invalid={fieldError('password') ? 'true' : undefined}
              />
              {changing ? (
                <button
                  type="button"
                  onClick={() => {
                    setChanging(false);
                    setPassword('');
                    setRefocus(true);
                  }}
                >
                  Cancel
                </button>
              ) : null}
            </div>
            <p class="hint" id="link-password-hint">
              {fieldError('password') ?? (link ? 'Saved with the other settings by Update link.' : 'Optional: whoever opens the link is asked for it.')}
            </p>
          </div>
        ) : unknown ? (
          <div class="field">
            <label for="link-current-password">Current password</label>
            <input
              id="link-current-password"
              type="password"
              autocomplete="off"
              value={current}
              onInput={(e) => setCurrent((e.currentTarget as HTMLInputElement).value)}
              aria-describedby="link-current-password-hint"
              aria-invalid={fieldError('password') ? 'true' : undefined}
            />
            <p class="hint" id="link-current-password-hint">
              {fieldError('password') ??
                'The drive keeps only a scrambled copy of this link’s password, and drops it when other settings are saved without it. Enter it to keep it.'}
            </p>
          </div>
        ) : null}
        <div class="field">
          <label for="link-expiry">Expires on</label>
          <input
            id="link-expiry"
            type="date"
            value={expiry}
            onInput={(e) => setExpiry((e.currentTarget as HTMLInputElement).value)}
            aria-invalid={fieldError('expiresAt') ? 'true' : undefined}
            aria-describedby="link-expiry-hint"
          />
          <p class="hint" id="link-expiry-hint">
            {fieldError('expiresAt') ?? 'Leave empty for a link that does not expire.'}
          </p>
        </div>
        <div class="field checkbox">
          <input id="link-download" type="checkbox" checked={allowDownload} onChange={(e) => setAllowDownload((e.currentTarget as HTMLInputElement).checked)} />
          <label for="link-download">Allow download</label>
        </div>
        <div class="field checkbox">
          <input id="link-edit" type="checkbox" checked={allowEdit} onChange={(e) => setAllowEdit((e.currentTarget as HTMLInputElement).checked)} />
          <label for="link-edit">Allow editing</label>
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {link ? 'Update link' : 'Create link'}
          </button>
          {link ? (
            <button type="button" class="danger" onClick={deleteLink} disabled={busy}>
              Delete link
            </button>
          ) : null}
        </div>
      </form>
    </>
  );
}
