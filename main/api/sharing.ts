import type { Http } from './http.js';
import type { EntryId } from './entries.js';
import { UsersResponse } from './checks.js';
import type { Permission, SharedUser } from './schemas.js';

export interface ShareResult {
  users: SharedUser[];
  /** Addresses that were asked for but are not among the answer's users: the drive does not know them. */
  unknown: string[];
}

/** How `permissions` travels: the document's list of names, or the object of flags deployed versions read. */
type PermissionForm = 'list' | 'object';

const normalise = (email: string) => email.trim().toLowerCase();

function encode(permissions: readonly Permission[], form: PermissionForm) {
  if (form === 'list') return permissions;
  // Any share gives view.
  return { view: true, edit: permissions.includes('edit'), download: permissions.includes('download') };
}

/** Whether some of these users were answered with fewer rights than were asked for. */
function shortOfAsked(users: readonly SharedUser[], asked: readonly Permission[]): boolean {
  return users.some((user) => user.entry_permissions !== undefined && asked.some((p) => !user.entry_permissions![p]));
}

/** Sharing an entry with people by e-mail, changing their permissions, and removing their access. */
export class SharingApi {
  /**
   * The document's list first. A deployed version that reads only the object form takes the list as view alone and
   * says so in the rights it answers; from then on this client sends the object form to that server.
   */
  private form: PermissionForm = 'list';

  constructor(private readonly http: Http) {}

  async share(entryId: EntryId, emails: readonly string[], permissions: readonly Permission[]): Promise<ShareResult> {
    const asked = new Set(emails.map(normalise));
    const send = (form: PermissionForm) => this.post(entryId, emails, encode(permissions, form));
    const recipients = (users: readonly SharedUser[]) => users.filter((u) => asked.has(normalise(u.email)));
    let users = await send(this.form);
    if (this.form === 'list' && shortOfAsked(recipients(users), permissions)) {
      // Sharing again sets the rights anew; nothing is added twice.
      this.form = 'object';
      users = await send('object');
    }
    const known = new Set(users.map((u) => normalise(u.email)));
    return { users, unknown: emails.filter((e) => !known.has(normalise(e))) };
  }

  async changePermissions(entryId: EntryId, userId: number, permissions: readonly Permission[]): Promise<SharedUser[]> {
    const send = (form: PermissionForm) => this.put(entryId, userId, encode(permissions, form));
    let users = await send(this.form);
    if (this.form === 'list' && shortOfAsked(users.filter((u) => u.id === userId), permissions)) {
      this.form = 'object';
      users = await send('object');
    }
    return users;
  }

  async unshare(entryId: EntryId, userId: number): Promise<SharedUser[]> {
    const { body } = await this.http.json({
      endpoint: 'DELETE /file-entries/{entryId}/unshare',
      method: 'DELETE',
      path: `file-entries/${entryId}/unshare`,
      json: { userId },
      check: UsersResponse,
    });
    return body.users;
  }

  private async post(entryId: EntryId, emails: readonly string[], permissions: unknown): Promise<SharedUser[]> {
    const { body } = await this.http.json({
      endpoint: 'POST /file-entries/{entryId}/share',
      method: 'POST',
      path: `file-entries/${entryId}/share`,
      json: { emails, permissions },
      check: UsersResponse,
    });
    return body.users;
  }

  private async put(entryId: EntryId, userId: number, permissions: unknown): Promise<SharedUser[]> {
    const { body } = await this.http.json({
      endpoint: 'PUT /file-entries/{entryId}/change-permissions',
      method: 'PUT',
      path: `file-entries/${entryId}/change-permissions`,
      json: { userId, permissions },
      check: UsersResponse,
    });
    return body.users;
  }
}
