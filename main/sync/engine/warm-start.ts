/**
 * What a running engine keeps in the mirror while its folder is in sync, so the next engine on the folder can start
 * warm: trust base as the drive and look at the drive cheaply instead of listing it (engine.ts `start`). The mirror
 * lets it go on any change to what base says of the drive, or a new intent in the journal (mirror.ts).
 */
import type { CheckState } from '../remote/changes.js';
import { WARM_START, type Mirror } from '../trees/mirror.js';

export interface WarmStart {
  version: number;
  check: CheckState;
  /** When the full listing is due (the clock's milliseconds): a start after it lists the drive at its first poll. */
  nextFullListing: number;
}

/** Another version of what is kept is not read. */
const WARM_START_VERSION = 1;

/** What the last engine on this folder kept (null: nothing, or nothing whole). */
export function readWarmStart(mirror: Mirror): WarmStart | null {
  const kept = mirror.getMeta(WARM_START);
  if (kept === undefined) return null;
  try {
    const saved = JSON.parse(kept) as WarmStart;
    if (saved?.version !== WARM_START_VERSION || typeof saved.nextFullListing !== 'number' || !Array.isArray(saved.check?.trusted)) return null;
    return saved;
  } catch {
    return null;
  }
}

/** Keeps what a warm start needs, after a pass that left everything in sync (written after base: see mirror.ts). */
export function keepWarmStart(mirror: Mirror, check: CheckState, nextFullListing: number): void {
  try {
    mirror.setMeta(WARM_START, JSON.stringify({ version: WARM_START_VERSION, check, nextFullListing } satisfies WarmStart));
  } catch {
    // The next start lists the drive first, as without it.
  }
}
