/**
 * When the engine's slower work is due: the next full listing of the drive (between them the cheap checks), the full
 * scan that verifies a burst of watched changes (spaced by how long the last one took), a look because the user opened
 * the window, and a warm start's first pass (warm-start.ts).
 */
import type { WarmStart } from './warm-start.js';

/** Looks at the drive because the user opened the window or the tray menu at most this often. */
const LOOK_SPACING_MS = 3_000;

export class Pacing {
  /** When the full listing is due (the clock's milliseconds); 0: at the next look. */
  private nextFullListing = 0;
  private lastFullScanMs = 0;
  private lookedAt = -Infinity;

  /** `kept`: what the last engine on the folder kept for a warm start, until the first pass takes it. */
  constructor(private kept: WarmStart | null) {}

  get fullListingDue(): number {
    return this.nextFullListing;
  }

  /** What a pass said of its listing and its scan. */
  passed(result: { fullListingDue?: number; fullScanMs?: number }): void {
    if (result.fullListingDue !== undefined) this.nextFullListing = result.fullListingDue;
    if (result.fullScanMs !== undefined) this.lastFullScanMs = result.fullScanMs;
  }

  listingDue(now: number): boolean {
    return now >= this.nextFullListing;
  }

  /**
   * How long after a burst of changes settles the folder is scanned in full: at most about 1 % of the time goes to
   * these scans (a 100,000-file rescan takes ~0.4 s).
   */
  verifyAfter(settleMs: number): number {
    return Math.max(settleMs, this.lastFullScanMs * 100);
  }

  /** Whether a look the user asked for may go to the drive now (then it counts as the last). */
  mayLook(now: number): boolean {
    if (now - this.lookedAt < LOOK_SPACING_MS) return false;
    this.lookedAt = now;
    return true;
  }

  /** The warm start kept for this engine, taken once: its listing falls due when the kept one did. */
  takeWarmStart(trusted: () => boolean): boolean {
    const kept = this.kept;
    this.kept = null;
    if (kept === null || !trusted()) return false;
    this.nextFullListing = kept.nextFullListing;
    return true;
  }
}
