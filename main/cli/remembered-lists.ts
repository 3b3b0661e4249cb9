/**
 * The command line's side of the remembered mailing lists (main/state/saved-lists.ts, shared with the window): a
 * list is named by its id or by the name it was remembered under, and using one remembers it.
 */
import { loadSavedLists, rememberList, type ListAccount, type SavedList } from '../state/saved-lists.js';
import { log } from './log.js';
import type { Session } from './session.js';

/** Lists are remembered per account; a token from DRIVESYNC_TOKEN without a configured e-mail has none. */
export function listAccount(session: Session): ListAccount | null {
  return session.email ? { server: session.server, email: session.email } : null;
}

export function savedLists(session: Session): SavedList[] {
  const account = listAccount(session);
  return account ? loadSavedLists(session.paths, account) : [];
}

/** The id a LIST argument stands for: a remembered list's name (in any case), else the argument itself. */
export function resolveListId(session: Session, given: string): string {
  const wanted = given.trim();
  const byName = savedLists(session).filter((l) => l.name.toLowerCase() === wanted.toLowerCase());
  return byName.length === 1 ? byName[0]!.id : wanted;
}

/** How a list is shown: its remembered name and id, or its id. */
export function listLabel(session: Session, id: string): string {
  const saved = savedLists(session).find((l) => l.id === id);
  return saved && saved.name !== `List ${id}` ? `${saved.name} (${id})` : id;
}

/**
 * Remembers that a list was used (and what is known of it now). Remembering is a convenience: a state dir that
 * cannot be written does not fail the command that used the list.
 */
export function noteListUse(session: Session, id: string, known: { subscribers?: number; used?: boolean; entry?: number } = {}): void {
  const account = listAccount(session);
  if (!account) return;
  try {
    rememberList(session.paths, account, {
      id,
      ...(known.subscribers !== undefined ? { subscribers: known.subscribers } : {}),
      ...(known.used ? { lastUsed: new Date().toISOString() } : {}),
      ...(known.entry !== undefined ? { entries: [known.entry] } : {}),
    });
  } catch (error) {
    log().warn({ listId: id, err: (error as Error).message }, 'cannot remember the list');
  }
}
