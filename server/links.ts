import type { Db } from './db.js';
import { timestamp } from './clock.js';
import { linkHash } from './secrets.js';

export interface LinkRow {
  id: number;
  hash: string;
  entry_id: number;
  user_id: number;
  password_hash: string | null;
  expires_at: string | null;
  allow_edit: number;
  allow_download: number;
  created_at: string;
  updated_at: string;
}

/** What a link request sets; the password is already hashed. */
export interface LinkSettings {
  passwordHash: string | null;
  expiresAt: string | null;
  allowEdit: boolean;
  allowDownload: boolean;
}

export const isExpired = (link: LinkRow) => link.expires_at !== null && Date.parse(link.expires_at) <= Date.now();

/** The shareable links of entries (at most one an entry), as stored in the `links` table. */
export class Links {
  private readonly byEntry;

  constructor(private readonly db: Db) {
    this.byEntry = db.prepare<[number], LinkRow>('SELECT * FROM links WHERE entry_id = ?');
  }

  /** The entry's link as stored, expired or not. */
  ofEntry(entryId: number): LinkRow | undefined {
    return this.byEntry.get(entryId);
  }

  /** The entry's live link; an expired one is removed on sight, as the service's cleanup job would. */
  liveOfEntry(entryId: number): LinkRow | undefined {
    const link = this.byEntry.get(entryId);
    if (link && isExpired(link)) {
      this.remove(link.id);
      return undefined;
    }
    return link;
  }

  withHash(hash: string): LinkRow | undefined {
    return this.db.prepare<[string], LinkRow>('SELECT * FROM links WHERE hash = ?').get(hash);
  }

  /** A new link for the entry; the live one instead if it has one by now (checked in the same transaction). */
  create(entryId: number, userId: number, s: LinkSettings): LinkRow {
    const now = timestamp();
    return this.db.transaction(() => {
      const again = this.liveOfEntry(entryId);
      if (again) return again;
      const info = this.db
        .prepare(
          `INSERT INTO links (hash, entry_id, user_id, password_hash, expires_at, allow_edit, allow_download, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(linkHash(), entryId, userId, s.passwordHash, s.expiresAt, s.allowEdit ? 1 : 0, s.allowDownload ? 1 : 0, now, now);
      return this.db.prepare<[number], LinkRow>('SELECT * FROM links WHERE id = ?').get(Number(info.lastInsertRowid))!;
    })();
  }

  /** Replaces every setting of the link. */
  update(linkId: number, s: LinkSettings): void {
    this.db
      .prepare(
        'UPDATE links SET password_hash = ?, expires_at = ?, allow_edit = ?, allow_download = ?, updated_at = ? WHERE id = ?',
      )
      .run(s.passwordHash, s.expiresAt, s.allowEdit ? 1 : 0, s.allowDownload ? 1 : 0, timestamp(), linkId);
  }

  remove(linkId: number): void {
    this.db.prepare('DELETE FROM links WHERE id = ?').run(linkId);
  }
}
