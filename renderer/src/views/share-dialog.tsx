import { useEffect, useRef, useState } from 'preact/hooks';
import type { EntryAccess, LinkView, Permission, Person, SavedList, SyncedEntry } from '../../../main/contract/index.js';
import { call, fieldsOf, messageOf } from '../api.js';
import { Tabs } from '../tabs.js';
import { LinkTab } from './link-tab.js';
import { ListShare } from './list-share.js';
import { WhoHasAccess } from './who-has-access.js';

const PERMISSIONS: ReadonlyArray<{ id: Permission; label: string }> = [
  { id: 'view', label: 'View' },
  { id: 'edit', label: 'Edit' },
  { id: 'download', label: 'Download' },
];

function PermissionBoxes({ idPrefix, value, onChange, legend }: { idPrefix: string; value: Permission[]; onChange: (p: Permission[]) => void; legend: string }) {
  return (
    <fieldset class="permissions">
      <legend>{legend}</legend>
      {PERMISSIONS.map((p) => (
        <span class="checkbox" key={p.id}>
          <input
            id={`${idPrefix}-${p.id}`}
            type="checkbox"
            checked={value.includes(p.id)}
            onChange={(e) => {
              const on = (e.currentTarget as HTMLInputElement).checked;
              onChange(on ? [...value, p.id] : value.filter((x) => x !== p.id));
            }}
          />
          <label for={`${idPrefix}-${p.id}`}>{p.label}</label>
        </span>
      ))}
    </fieldset>
  );
}

export function ShareDialog({ entry, onClose }: { entry: SyncedEntry; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const refArg = { root: entry.root, path: entry.path };
  const [people, setPeople] = useState<Person[] | null>(null);
  const [emails, setEmails] = useState('');
  const [perms, setPerms] = useState<Permission[]>(['view', 'download']);
  const [tab, setTab] = useState<'people' | 'list' | 'link'>('people');
  const [listPerms, setListPerms] = useState<Permission[]>(['view', 'download']);
  const [link, setLink] = useState<LinkView | null | undefined>(undefined);
  const [message, setMessage] = useState('');
  const [error, setError] = useState<{ text: string; fields: Record<string, string> } | null>(null);
  const [busy, setBusy] = useState(false);
  const [access, setAccess] = useState<EntryAccess | null>(null);
  /** Whether to offer sharing: the owner's to do; unknown while who has access loads (offered if that fails: the drive decides). */
  const [canShare, setCanShare] = useState<boolean | null>(null);

  const loadAccess = () =>
    call('share:access', refArg).then(
      (a) => {
        setAccess(a);
        setCanShare(a.canShare);
        // The people of the People tab are those who have access (not the account itself).
        setPeople(a.people.filter((p) => !p.you).map((p) => ({ userId: p.userId, email: p.email, name: p.name, permissions: p.permissions ?? [] })));
        return a;
      },
      (e) => {
        fail(e);
        setCanShare(true);
        return null;
      },
    );

  useEffect(() => {
    ref.current?.showModal();
    void loadAccess().then((a) => {
      if (a === null) call('share:list', refArg).then(setPeople, (e) => fail(e));
      // The link's password state (whether this computer knows it) is the Link tab's, and only the owner's to change.
      if (a === null || a.canShare) call('link:get', refArg).then(setLink, (e) => fail(e));
    });
  }, [entry.root, entry.path]);

  const fail = (e: unknown) => setError({ text: messageOf(e), fields: fieldsOf(e) });
  const run = async (work: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    setMessage('');
    try {
      setMessage(await work());
      // What changed shows in who has access too.
      void loadAccess();
    } catch (e) {
      fail(e);
    } finally {
      setBusy(false);
    }
  };

  const share = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const list = emails.split(/[\s,;]+/).filter(Boolean);
      const result = await call('share:add', { ...refArg, emails: list, permissions: perms });
      setPeople(result.people);
      setEmails('');
      return result.unknown.length > 0 ? `Shared. No account for: ${result.unknown.join(', ')}.` : `Shared with ${list.join(', ')}.`;
    });
  };
  const shareWithList = (list: SavedList) =>
    void run(async () => {
      const result = await call('share:list-members', { ...refArg, listId: list.id, permissions: listPerms });
      setPeople(result.people);
      const unknown = result.unknown.length > 0 ? ` No account for: ${result.unknown.join(', ')}.` : '';
      const members = result.subscribed === 1 ? '1 subscribed member' : `${result.subscribed} subscribed members`;
      return `Shared with ${members} of ${list.name}.${unknown}`;
    });
  const change = (person: Person, permissions: Permission[]) =>
    void run(async () => {
      if (permissions.length === 0) throw new Error('Keep at least one permission, or remove the person.');
      const before = people;
      // The boxes show the choice at once; the server's answer (or the old state, on failure) follows.
      setPeople((list) => (list ?? []).map((p) => (p.userId === person.userId ? { ...p, permissions } : p)));
      try {
        setPeople(await call('share:change', { ...refArg, userId: person.userId, permissions }));
      } catch (error) {
        setPeople(before);
        throw error;
      }
      return `Changed what ${person.email} may do.`;
    });
  const remove = (person: Person) =>
    void run(async () => {
      setPeople(await call('share:remove', { ...refArg, userId: person.userId }));
      return `${person.email} no longer has access.`;
    });
  const fieldError = (name: string) => error?.fields[name];

  return (
    <dialog ref={ref} class="share-dialog" aria-labelledby="share-title" onClose={onClose} data-testid="share-dialog">
      <header class="dialog-header">
        <h2 id="share-title">
          {access?.sharedWithMe ? 'Shared with you: ' : 'Share '}
          <span class="entry-title">“{entry.name}”</span>
        </h2>
        <button type="button" class="close" onClick={() => ref.current?.close()} aria-label="Close">
          ✕
        </button>
      </header>
      <div role="status" aria-live="polite" class="dialog-message" data-testid="share-message">
        {message}
      </div>
      {error ? (
        <div role="alert" class="error-summary" data-testid="share-error">
          {error.text}
        </div>
      ) : null}

      <WhoHasAccess access={access} />

      {canShare ? (
        <Tabs
          id="share"
          label="Share by"
          tabs={[
            { id: 'people', label: people === null || people.length === 0 ? 'People' : `People (${people.length})` },
            { id: 'list', label: 'Mailing list' },
            { id: 'link', label: link ? 'Link (on)' : 'Link' },
          ]}
          selected={tab}
          onSelect={setTab}
        >
          {tab === 'people' ? (
            <>
          {people === null ? (
            <p class="muted">Loading…</p>
          ) : people.length === 0 ? (
            <p class="muted">Not shared with anyone yet.</p>
          ) : (
            <ul class="people" data-testid="people">
              {people.map((p) => (
                <li key={p.userId}>
                  <span class="person">{p.name ? `${p.name} <${p.email}>` : p.email}</span>
                  <PermissionBoxes idPrefix={`person-${p.userId}`} legend={`What ${p.email} may do`} value={p.permissions} onChange={(next) => change(p, next)} />
                  <button type="button" onClick={() => remove(p)} disabled={busy} aria-label={`Remove ${p.email}`}>
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          )}
          <form onSubmit={share} class="inline-form">
            <div class="field">
              <label for="share-emails">Share with (e-mail addresses)</label>
              <input id="share-emails" type="text" value={emails} onInput={(e) => setEmails((e.currentTarget as HTMLInputElement).value)} aria-describedby="share-emails-hint" />
              <p class="hint" id="share-emails-hint">
                Separate several addresses with commas.
              </p>
            </div>
            <PermissionBoxes idPrefix="share-perm" legend="They may" value={perms} onChange={setPerms} />
            <button type="submit" disabled={busy || emails.trim() === '' || perms.length === 0}>
              Share
            </button>
          </form>
            </>
          ) : tab === 'list' ? (
            <ListShare
              busy={busy}
              run={run}
              onShare={shareWithList}
              permissionBoxes={<PermissionBoxes idPrefix="list-perm" legend="Members may" value={listPerms} onChange={setListPerms} />}
            />
          ) : (
            <LinkTab
              entry={entry}
              link={link}
              onLink={(next) => {
                setLink(next);
                void loadAccess();
              }}
              busy={busy}
              run={run}
              fieldError={fieldError}
            />
          )}
        </Tabs>
      ) : null}
    </dialog>
  );
}
