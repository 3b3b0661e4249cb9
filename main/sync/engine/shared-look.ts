/**
 * What is shared with the account, looked at on each poll: the shared entries themselves every poll (one small
 * listing: a new share, a share removed, a permission changed, a rename); what they hold, which the drive's cheap
 * signals do not cover (they are of the account's own drive), when a probe of them changed or at an interval that
 * grows with their size.
 */
import type { DriveClient } from '../../api/client.js';
import { NO_SHARED_AREA, type SharedArea } from '../model/shared-area.js';
import { listSharedArea, listSharedTops, probeSharedFolders, topsKey } from '../remote/shared.js';
import type { SharedStage } from './pass/shared-stage.js';

/**
 * How far apart the contents of what is shared with the account are listed, per entry they hold: 1.5 s an entry is
 * about 40 entries (~36 KiB at ~900 B an entry) a minute whatever the size, a seventh of the idle traffic budget;
 * never more often than a poll.
 */
const SHARED_WALK_MS_PER_ENTRY = 1_500;

export class SharedAreaLook {
  /** When the contents are listed again, the shared entries as they were last time, and what the probe said then. */
  private nextWalk = 0;
  private tops = '';
  private probe: string | undefined;

  constructor(
    private readonly client: DriveClient,
    private readonly stage: SharedStage,
    private readonly spacingMs: ((entries: number) => number) | undefined,
  ) {}

  /** The shared area as it is now, when it changed (undefined: as the remote tree holds it). */
  async look(now: number, pollMs: number, signal: AbortSignal): Promise<SharedArea | undefined> {
    const place = this.stage.place();
    const current = this.stage.area;
    if (!place) return current.key === '' ? undefined : NO_SHARED_AREA;
    const tops = await listSharedTops(this.client, place.me, signal);
    const key = topsKey(tops, place);
    // Where the server answers one-entry pages with totals, what the shared folders hold is probed every poll.
    const probe = key === this.tops ? await probeSharedFolders(this.client, current, signal) : null;
    const probed = probe !== null && probe !== this.probe;
    // A shared file's end waits for this listing to say whether a new version of it was shared (shared-stage.ts).
    const ends = this.stage.endsWaiting;
    if (!ends && key === this.tops && !probed && now < this.nextWalk) return undefined;
    const area = await listSharedArea(this.client, place, { signal, tops, keepFolder: current.items.length > 0 });
    this.tops = key;
    // The probe's answer for what was just listed: the next poll's probe is compared with it.
    this.probe = (await probeSharedFolders(this.client, area, signal)) ?? undefined;
    this.nextWalk = now + (this.spacingMs ?? ((n) => Math.max(pollMs, n * SHARED_WALK_MS_PER_ENTRY)))(area.items.length);
    return area.key === current.key && !ends ? undefined : area;
  }
}
