import type { Http } from './http.js';
import type { EntryId } from './entries.js';
import { UsersResponse, type Permission, type User } from './schemas.js';

export interface ShareResult {
  users: User[];
  /** Addresses that were asked for but are not among the answer's users: the drive does not know them. */
  unknown: string[];
}

const normalise = (email: string) => email.trim().toLowerCase();

/** Sharing an entry with people by e-mail, changing their permissions, and removing their access. */
export class SharingApi {
  constructor(private readonly http: Http) {}

  async share(entryId: EntryId, emails: readonly string[], permissions: readonly Permission[]): Promise<ShareResult> {
    const { body } = await this.http.json({
      endpoint: 'POST /file-entries/{entryId}/share',
      method: 'POST',
      path: `file-entries/${entryId}/share`,
      json: { emails, permissions },
      schema: UsersResponse,
    });
    const known = new Set(body.users.map((u) => normalise(u.email)));
    return { users: body.users, unknown: emails.filter((e) => !known.has(normalise(e))) };
  }

  async changePermissions(entryId: EntryId, userId: number, permissions: readonly Permission[]): Promise<User[]> {
    const { body } = await this.http.json({
      endpoint: 'PUT /file-entries/{entryId}/change-permissions',
      method: 'PUT',
      path: `file-entries/${entryId}/change-permissions`,
      json: { userId, permissions },
      schema: UsersResponse,
    });
    return body.users;
  }

  async unshare(entryId: EntryId, userId: number): Promise<User[]> {
    const { body } = await this.http.json({
      endpoint: 'DELETE /file-entries/{entryId}/unshare',
      method: 'DELETE',
      path: `file-entries/${entryId}/unshare`,
      json: { userId },
      schema: UsersResponse,
    });
    return body.users;
  }
}
