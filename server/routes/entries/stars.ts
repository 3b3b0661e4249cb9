import type { App, Context } from '../../context.js';
import { IdsBody, toIds } from '../common.js';
import { requireAll } from './targets.js';

/** Stars are a tag in the service; every answer names that one tag. */
const STARRED = { id: 1, name: 'starred', display_name: 'Starred', type: 'label' };

/** `POST /file-entries/star` and `/unstar`: the caller's own stars, set or cleared whatever they were. */
export function registerStars(app: App, { db, entries }: Context): void {
  for (const action of ['star', 'unstar'] as const) {
    app.post(`/file-entries/${action}`, { schema: { body: IdsBody } }, async (request) => {
      const targets = requireAll(entries, toIds(request.body.entryIds));
      for (const entry of targets) entries.authorize(request.userId, entry, 'view');
      const sql =
        action === 'star'
          ? 'INSERT OR IGNORE INTO stars (user_id, entry_id) VALUES (?, ?)'
          : 'DELETE FROM stars WHERE user_id = ? AND entry_id = ?';
      const statement = db.prepare(sql);
      db.transaction(() => targets.forEach((entry) => statement.run(request.userId, entry.id)))();
      return { status: 'success', tag: STARRED };
    });
  }
}
