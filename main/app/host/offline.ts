/**
 * A folder that cannot reach the drive, as the window and the tray say it: since when (the first pass that could not
 * reach it, kept until one does) and how many changes made here wait to go up; and once the drive is reached again,
 * for how long it was not, said once.
 */
import type { FolderStatus, OfflineView } from '../../contract/index.js';

/** Marks a folder offline from `at` on (or keeps the earlier mark), with what waits here when the pass counted it. */
export function markOffline(status: FolderStatus, at: string, waitingUp?: number): void {
  status.offline = { since: status.offline?.since ?? at, waitingUp: waitingUp ?? status.offline?.waitingUp ?? null };
}

/** The drive was reached: clears the folder's offline mark and answers what to say of it (null when it had none). */
export function reached(status: FolderStatus, nowMs: number): string | null {
  const offline = status.offline;
  if (!offline) return null;
  delete status.offline;
  return backOnlineWords(offline, nowMs);
}

/** `Back online after 4 min: syncing 3 changes made here meanwhile.` */
export function backOnlineWords(offline: OfflineView, nowMs: number): string {
  const after = `Back online after ${lasted(nowMs - Date.parse(offline.since))}`;
  const n = offline.waitingUp ?? 0;
  return n === 0 ? `${after}.` : `${after}: syncing ${n} change${n === 1 ? '' : 's'} made here meanwhile.`;
}

/** The app as offline: since the earliest folder that is, with the changes waiting in all of them. */
export function offlineOfApp(folders: readonly FolderStatus[]): OfflineView | null {
  const marks = folders.flatMap((f) => (f.offline ? [f.offline] : []));
  if (marks.length === 0) return null;
  const since = marks.map((m) => m.since).sort()[0]!;
  const counted = marks.filter((m) => m.waitingUp !== null);
  return { since, waitingUp: counted.length === 0 ? null : counted.reduce((sum, m) => sum + m.waitingUp!, 0) };
}

/** A span of time in a few words: `45 s`, `3 min`, `2 h 5 min`. */
export function lasted(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}
