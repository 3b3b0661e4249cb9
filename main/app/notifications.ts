/**
 * Desktop notifications for what needs the user: a conflict (both versions kept), errors (at most one
 * notification a minute, counting the rest), and the mass-delete question.
 */
import type { ConflictItem, DeletionQuestion, ErrorItem } from '../contract/index.js';
import type { HostEventSource } from './host/events.js';

export interface Notification {
  title: string;
  body: string;
  /** What a click does. */
  action: 'open-window';
}


const ERROR_INTERVAL_MS = 60_000;
const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1) || path;

export class Notifier {
  private lastError = -Infinity;
  private heldErrors = 0;

  constructor(
    readonly show: (notification: Notification) => void,
    private readonly now: () => number = () => Date.now(),
  ) {}

  attach(source: HostEventSource): void {
    source.on('conflict', (c) => this.conflict(c));
    source.on('item-error', (e) => this.error(e));
    source.on('confirm-deletions', (q) => this.deletions(q));
  }

  conflict(item: ConflictItem): void {
    this.show({
      title: `Conflict: ${baseName(item.path)}`,
      body: `${item.path} changed here and on the drive. Both versions were kept; yours is ${baseName(item.copyPath)}.`,
      action: 'open-window',
    });
  }

  error(item: ErrorItem): void {
    const at = this.now();
    if (at - this.lastError < ERROR_INTERVAL_MS) {
      this.heldErrors += 1;
      return;
    }
    this.lastError = at;
    const more = this.heldErrors > 0 ? ` (and ${this.heldErrors} more since the last notice)` : '';
    this.heldErrors = 0;
    this.show({
      title: item.path ? `Could not sync ${baseName(item.path)}` : 'Syncing stopped',
      body: `${item.message}${more}`,
      action: 'open-window',
    });
  }

  deletions(question: DeletionQuestion): void {
    this.show({
      title: 'Delete many files?',
      body: `A sync of ${question.root} would delete ${question.count} of ${question.synced} items${whereDeleted(question)}. Nothing is deleted until you answer in drivesync.`,
      action: 'open-window',
    });
  }
}

/** Where the deletions of a question would happen, in a few words (empty when it does not say). */
function whereDeleted(question: DeletionQuestion): string {
  const parts = question.groups.map((g) =>
    g.where === 'here' ? `${g.count} deleted on the drive would go from this computer` : `${g.count} deleted here would go from the drive`,
  );
  return parts.length === 0 ? '' : ` (${parts.join('; ')})`;
}
