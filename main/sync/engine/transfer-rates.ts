/** The rate and the time left of each transfer under way, from when it started (what the progress line shows). */
import type { TransferEvent } from '../execute/executor.js';
import type { Clock } from '../local/ports.js';

export class TransferRates {
  private readonly starts = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** Adds the rate and the time left to a transfer's progress. */
  withRate(event: TransferEvent): TransferEvent {
    const key = `${event.direction}:${event.path}`;
    const now = this.clock.now().getTime();
    const started = this.starts.get(key) ?? now;
    // A finished transfer is forgotten at once: a pass of 100,000 uploads would otherwise keep a key for each.
    if (event.total !== undefined && event.transferred >= event.total) this.starts.delete(key);
    else this.starts.set(key, started);
    const seconds = (now - started) / 1000;
    if (seconds <= 0) return event;
    const rate = event.transferred / seconds;
    const etaSeconds = event.total !== undefined && rate > 0 ? Math.max(0, (event.total - event.transferred) / rate) : undefined;
    return { ...event, rate, ...(etaSeconds !== undefined ? { etaSeconds } : {}) };
  }

  /** A pass's transfers are over: their starts are forgotten. */
  clear(): void {
    this.starts.clear();
  }
}
