import type { RelPath } from '../../model/types.js';
import type { PassPorts } from './inputs.js';

/** What the user needs to hear once, not on every pass: notices, and items left out or that cannot be read. */
export class ToldOnce {
  private readonly notices = new Set<string>();
  private readonly skips = new Set<string>();

  constructor(private readonly host: Pick<PassPorts, 'tell'>) {}

  notice(message: string): void {
    if (this.notices.has(message)) return;
    this.notices.add(message);
    this.host.tell({ kind: 'notice', message });
  }

  skipped(path: RelPath, reason: string, leftOut: boolean): void {
    const key = `${path}\u0000${reason}`;
    if (this.skips.has(key)) return;
    this.skips.add(key);
    this.host.tell({ kind: 'item-error', error: leftOut ? { path, message: reason, leftOut } : { path, message: reason } });
  }
}
