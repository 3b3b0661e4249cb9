import type { Db } from './db.js';
import { timestamp } from './clock.js';
import { listStyleId } from './secrets.js';

export const DEFAULT_LIST_FIELDS = ['FIRST_NAME', 'LAST_NAME'] as const;

export class ListAdminError extends Error {}

/** Creates a mailing list owned by an existing account; the service itself has no endpoint for this. */
export function addList(
  db: Db,
  name: string,
  ownerEmail: string,
  options: { fields?: readonly string[]; doubleOptIn?: boolean } = {},
): string {
  if (name.trim() === '') throw new ListAdminError('the list name is empty');
  const owner = db.prepare<[string], { id: number }>('SELECT id FROM users WHERE email = ?').get(ownerEmail);
  if (!owner) throw new ListAdminError(`no account with the e-mail ${ownerEmail}`);
  const fields = [...new Set((options.fields ?? DEFAULT_LIST_FIELDS).map((f) => f.trim().toUpperCase()))];
  for (const field of fields) {
    if (!/^[A-Z][A-Z0-9_]{0,63}$/.test(field) || field === 'EMAIL') {
      throw new ListAdminError(`"${field}" is not a valid field name (letters, digits and _; not EMAIL)`);
    }
  }
  const id = listStyleId();
  db.prepare('INSERT INTO lists (id, name, owner_id, fields, double_optin, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    id,
    name.trim(),
    owner.id,
    JSON.stringify(fields),
    options.doubleOptIn ? 1 : 0,
    timestamp(),
  );
  return id;
}
