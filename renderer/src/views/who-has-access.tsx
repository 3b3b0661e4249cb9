import type { EntryAccess, Permission } from '../../../main/contract/index.js';
import { formatWhen } from '../format.js';

/** What a set of permissions allows, in words: "view and download". */
export function permissionWords(permissions: readonly Permission[]): string {
  const words = (['view', 'edit', 'download'] as const).filter((p) => permissions.includes(p));
  if (words.length === 0) return 'nothing';
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** What an account shared with may do, as a sentence; the drive may not say. */
export function mayDo(permissions: readonly Permission[] | null): string {
  if (permissions === null) return 'The drive does not say what you may do with it.';
  const not = (['edit', 'download'] as const).filter((p) => !permissions.includes(p));
  return `You may ${permissionWords(permissions)} it${not.length > 0 ? `, not ${not.join(' or ')} it` : ''}.`;
}

/**
 * The first part of the share dialog: who has access to the entry — its owner, the people, the link and its
 * settings, and the mailing lists this computer shared it with. For an entry shared with the account: who shared it,
 * what the account may do, and that only the owner can share it.
 */
export function WhoHasAccess({ access }: { access: EntryAccess | null }) {
  if (access === null) {
    return (
      <section aria-labelledby="access-title" class="access" data-testid="access">
        <h3 id="access-title">Who has access</h3>
        <p class="muted">Loading…</p>
      </section>
    );
  }
  const others = access.people.filter((p) => !p.you);
  const { link } = access;
  return (
    <section aria-labelledby="access-title" class="access" data-testid="access">
      <h3 id="access-title">Who has access</h3>
      {access.sharedWithMe ? (
        <div class="shared-with-me" data-testid="shared-with-me">
          <p>
            {access.owner ? (
              <>
                <strong>{access.owner}</strong> shared this with you.
              </>
            ) : (
              'Someone shared this with you; the drive does not say who.'
            )}{' '}
            {mayDo(access.myPermissions)}
          </p>
          <p class="owner-only" data-testid="owner-only">
            Only the owner can share this, change who has access or make a link{access.owner ? `: ask ${access.owner}.` : '.'}
          </p>
        </div>
      ) : null}
      <dl class="access-facts">
        <dt>Owner</dt>
        <dd data-testid="access-owner">{access.sharedWithMe ? (access.owner ?? 'Not said by the drive') : `You (${access.owner})`}</dd>
        <dt>{access.sharedWithMe ? 'Also shared with' : 'People'}</dt>
        <dd data-testid="access-people">
          {others.length === 0 ? (
            <span class="muted">{access.sharedWithMe ? 'Nobody else, as far as the drive says' : 'Nobody yet'}</span>
          ) : (
            <ul class="access-list">
              {others.map((p) => (
                <li key={p.userId}>
                  <span class="person">{p.name ? `${p.name} <${p.email}>` : p.email}</span>{' '}
                  <span class="muted">{p.permissions === null ? '(what they may do is not said)' : `may ${permissionWords(p.permissions)}`}</span>
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Link</dt>
        <dd data-testid="access-link">
          {link === null ? (
            <span class="muted">{access.sharedWithMe ? 'None you can see' : 'None'}</span>
          ) : (
            <>
              Anyone with the link can open it
              <ul class="access-list">
                <li>Password: {link.hasPassword ? 'yes' : 'no'}</li>
                <li>Expires: {link.expiresAt ? formatWhen(link.expiresAt) : 'never'}</li>
                <li>Download: {link.allowDownload ? 'allowed' : 'not allowed'}</li>
                <li>Editing: {link.allowEdit ? 'allowed' : 'not allowed'}</li>
              </ul>
            </>
          )}
        </dd>
        {access.sharedWithMe ? null : (
          <>
            <dt>Mailing lists</dt>
            <dd data-testid="access-lists">
              {access.lists.length === 0 ? <span class="muted">None</span> : access.lists.map((l) => l.name).join(', ')}
              <p class="hint">As far as this computer knows: the drive does not say which lists an item went to, so only those it was shared with from here are listed.</p>
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}
