/**
 * Bytes, rate and ETA across every folder's transfers, from the engines' `transfer` events. A "round" starts when the
 * first transfer starts after everything was quiet, and ends when no folder is busy any more; its totals are what
 * the window's progress bar shows.
 */
import type { Progress, Transfer } from '../../contract/index.js';

export interface TransferSample {
  root: string;
  path: string;
  direction: 'up' | 'down';
  transferred: number;
  total: number | undefined;
}

/** Seconds over which the rate is smoothed. */
const RATE_WINDOW_MS = 5_000;

export class ProgressTracker {
  private readonly current = new Map<string, Transfer>();
  /** Bytes of transfers finished this round, and the sizes of all transfers seen this round. */
  private finishedBytes = 0;
  private knownTotal = 0;
  private filesDone = 0;
  private busy = false;
  private samples: Array<{ at: number; bytes: number }> = [];
  private movedBytes = 0;

  constructor(private readonly now: () => number = () => Date.now()) {}

  private key(root: string, path: string): string {
    return `${root}\u0000${path}`;
  }

  /** Records one transfer event; answers true when a transfer started or finished (worth telling at once). */
  record(sample: TransferSample): boolean {
    const key = this.key(sample.root, sample.path);
    const previous = this.current.get(key);
    const total = sample.total ?? null;
    let changed = false;
    if (!previous) {
      if (this.current.size === 0 && !this.busy) this.resetRound();
      this.knownTotal += total ?? 0;
      changed = true;
    } else if (previous.total === null && total !== null) {
      this.knownTotal += total;
    }
    const delta = Math.max(0, sample.transferred - (previous?.transferred ?? 0));
    this.movedBytes += delta;
    this.samples.push({ at: this.now(), bytes: this.movedBytes });
    this.trimSamples();
    const transfer: Transfer = { root: sample.root, path: sample.path, direction: sample.direction, transferred: sample.transferred, total };
    if (total !== null && sample.transferred >= total) {
      this.current.delete(key);
      this.finishedBytes += total;
      this.filesDone += 1;
      changed = true;
    } else {
      this.current.set(key, transfer);
    }
    return changed;
  }

  /** Folders say whether any of them is scanning or syncing; a quiet app ends the round. */
  setBusy(busy: boolean): void {
    if (busy && !this.busy && this.current.size === 0) this.resetRound();
    this.busy = busy;
    if (!busy) {
      // Whatever was under way when the passes ended was abandoned (stopped, paused, failed).
      this.current.clear();
      this.samples = [];
    }
  }

  private resetRound(): void {
    this.finishedBytes = 0;
    this.knownTotal = 0;
    this.filesDone = 0;
    this.samples = [];
    this.movedBytes = 0;
  }

  private trimSamples(): void {
    const cutoff = this.now() - RATE_WINDOW_MS;
    while (this.samples.length > 2 && this.samples[0]!.at < cutoff) this.samples.shift();
  }

  snapshot(): Progress {
    this.trimSamples();
    const transfers = [...this.current.values()];
    const inFlight = transfers.reduce((sum, t) => sum + t.transferred, 0);
    const bytesDone = this.finishedBytes + inFlight;
    const bytesTotal = Math.max(this.knownTotal, bytesDone);
    let bytesPerSecond = 0;
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (first && last && last.at > first.at && transfers.length > 0) {
      bytesPerSecond = ((last.bytes - first.bytes) * 1000) / (last.at - first.at);
    }
    const remaining = bytesTotal - bytesDone;
    const etaSeconds = transfers.length > 0 && bytesPerSecond > 0 ? Math.ceil(remaining / bytesPerSecond) : transfers.length > 0 ? null : 0;
    return {
      active: this.busy || transfers.length > 0,
      bytesDone,
      bytesTotal,
      bytesPerSecond: Math.round(bytesPerSecond),
      etaSeconds,
      filesDone: this.filesDone,
      transfers,
    };
  }
}
