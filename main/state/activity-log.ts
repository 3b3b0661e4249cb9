/**
 * The activity log kept per synced folder while it syncs (`activity/KEY.jsonl`), whichever process syncs it, so
 * `drivesync activity` can say what changed recently, where, and on which side — the window's Activity as a command.
 * One JSON line per item done; kept to its last MAX_KEPT lines.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Activity } from '../sync/engine/pass/summary.js';
import type { StatePaths } from './paths.js';

/** Which way a change went: to the drive, to this computer, or both (a conflict keeps both versions). */
export type Side = 'up' | 'down' | 'both';

export interface ActivityLine {
  at: string;
  root: string;
  kind: Activity['kind'];
  side: Side;
  path: string;
  /** The entry a deletion put in the drive's trash. */
  remoteId?: number;
}

/** Lines kept per folder; the file is cut back to them once it holds twice as many. */
export const MAX_KEPT = 1000;

const UP = new Set<Activity['kind']>(['upload', 'replace-remote', 'create-remote-folder', 'rename-remote', 'move-remote', 'trash-remote']);
const DOWN = new Set<Activity['kind']>(['download', 'create-local-folder', 'move-local', 'trash-local', 'drop-local']);

/** The side an activity is on; null for what is no change of either side (a record, a notice). */
export function sideOf(kind: Activity['kind']): Side | null {
  if (UP.has(kind)) return 'up';
  if (DOWN.has(kind)) return 'down';
  return kind === 'conflict' || kind === 'merge' ? 'both' : null;
}

export function activityFile(paths: StatePaths, key: string): string {
  return join(paths.dataDir, 'activity', `${key}.jsonl`);
}

/** Appends a folder's activity as it happens; cuts the file back now and then. */
export class ActivityLog {
  private lines: number | null = null;

  constructor(
    private readonly file: string,
    private readonly root: string,
  ) {}

  add(activity: Activity): void {
    const side = sideOf(activity.kind);
    if (side === null) return;
    const line: ActivityLine = { at: activity.at, root: this.root, kind: activity.kind, side, path: activity.path, ...(activity.remoteId !== undefined ? { remoteId: activity.remoteId } : {}) };
    mkdirSync(dirname(this.file), { recursive: true });
    this.lines ??= readLines(this.file).length;
    appendFileSync(this.file, `${JSON.stringify(line)}\n`);
    if (++this.lines >= 2 * MAX_KEPT) this.cut();
  }

  private cut(): void {
    const kept = readLines(this.file).slice(-MAX_KEPT);
    const temp = `${this.file}.tmp`;
    writeFileSync(temp, kept.map((l) => `${JSON.stringify(l)}\n`).join(''));
    renameSync(temp, this.file);
    this.lines = kept.length;
  }
}

/** A folder's activity lines, oldest first; what is not a whole line (a write under way) is left out. */
export function readLines(file: string): ActivityLine[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: ActivityLine[] = [];
  for (const raw of text.split('\n')) {
    if (raw === '') continue;
    try {
      const line = JSON.parse(raw) as ActivityLine;
      if (typeof line.at === 'string' && typeof line.path === 'string' && typeof line.kind === 'string') out.push(line);
    } catch {
      // A line cut short: left out.
    }
  }
  return out;
}
