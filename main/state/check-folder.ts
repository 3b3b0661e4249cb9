/**
 * `drivesync check` and the window's "Check files…": every synced file of a folder (or a random sample) compared with
 * the drive's bytes (main/sync/check.ts), a page of the mirror at a time, a few files at once. Where it got to is kept
 * beside the folder's mirror after each page, so a check stopped (Ctrl-C, a closed window, a crash) goes on where it
 * stopped when it is run again; a check that ends removes it.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import PQueue from 'p-queue';
import type { DriveClient } from '../api/client.js';
import { checkFile, type CheckFinding } from '../sync/remote/check.js';
import { readMirror, type MirrorEntry } from '../sync/trees/mirror-read.js';
import { nodeFileSystem } from '../sync/local/ports.js';
import { writeJsonAtomic } from './json-file.js';

export type { CheckFinding, CheckFindingKind } from '../sync/remote/check.js';

/** Files read from the mirror at a time; what a stop loses at most is one page's comparisons. */
const PAGE = 200;
/** Files compared at once. */
const CONCURRENCY = 4;

export interface CheckProgress {
  checked: number;
  total: number;
  /** Bytes of the drive's content compared so far. */
  bytes: number;
}

export interface CheckReport extends CheckProgress {
  findings: CheckFinding[];
  /** False when it was stopped before the last file: run again to go on. */
  complete: boolean;
  /** When this check began (an earlier run's, when this one went on with it). */
  startedAt: string;
  /** How many files an earlier run had checked when this one went on from there. */
  resumedAt?: number;
  sample: number | null;
}

export interface CheckFolderOptions {
  root: string;
  /** The folder's mirror database (its checkpoint is kept beside it). */
  mirror: string;
  client: DriveClient;
  /** Check this many files picked at random instead of all of them. */
  sample?: number;
  /** Start over even if an earlier check was stopped before its end. */
  fromStart?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: CheckProgress) => void;
  now?: () => Date;
}

interface Checkpoint {
  startedAt: string;
  sample: number | null;
  /** The sample's files, in the order they are checked. */
  ids?: number[];
  /** The highest remote id of the files checked so far (a whole-folder check walks by id). */
  after: number;
  checked: number;
  total: number;
  bytes: number;
  findings: CheckFinding[];
}

export const checkpointFile = (mirror: string) => `${mirror}.check.json`;

function readCheckpoint(file: string): Checkpoint | null {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Checkpoint;
    return typeof value.after === 'number' && Array.isArray(value.findings) ? value : null;
  } catch {
    return null;
  }
}

/** A check stopped before its end, as `status` and the window say it: how far it got. */
export function unfinishedCheck(mirror: string): { checked: number; total: number; startedAt: string } | null {
  const file = checkpointFile(mirror);
  if (!existsSync(file)) return null;
  const point = readCheckpoint(file);
  return point ? { checked: point.checked, total: point.total, startedAt: point.startedAt } : null;
}

export async function checkSyncedFolder(options: CheckFolderOptions): Promise<CheckReport> {
  const file = checkpointFile(options.mirror);
  const sample = options.sample ?? null;
  const earlier = options.fromStart ? null : readCheckpoint(file);
  const resumed = earlier !== null && earlier.sample === sample;
  const point: Checkpoint = resumed ? earlier : fresh(options, sample);
  const resumedAt = resumed ? earlier.checked : undefined;
  const report = (complete: boolean): CheckReport => ({
    checked: point.checked,
    total: point.total,
    bytes: point.bytes,
    findings: point.findings,
    complete,
    startedAt: point.startedAt,
    sample,
    ...(resumedAt !== undefined ? { resumedAt } : {}),
  });
  if (!resumed && existsSync(options.mirror)) writeJsonAtomic(file, point, 0o600);
  const ports = { root: options.root, client: options.client, fs: nodeFileSystem, ...(options.signal ? { signal: options.signal } : {}) };
  options.onProgress?.({ checked: point.checked, total: point.total, bytes: point.bytes });
  for (;;) {
    const page = nextPage(options.mirror, point);
    if (page.files.length === 0 && page.consumed === 0) break;
    // Each file as it is done; the checkpoint moves a page at a time.
    const done = await checkPage(page.files, ports, (files, bytes) =>
      options.onProgress?.({ checked: point.checked + files, total: point.total, bytes: point.bytes + bytes }),
    );
    if (options.signal?.aborted) return report(false);
    if (done.failure !== undefined) throw done.failure;
    point.findings.push(...done.found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)));
    point.checked += page.consumed;
    point.bytes += done.bytes;
    if (page.files.length > 0) point.after = page.files.at(-1)!.remoteId;
    writeJsonAtomic(file, point, 0o600);
    options.onProgress?.({ checked: point.checked, total: point.total, bytes: point.bytes });
  }
  rmSync(file, { force: true });
  return report(true);
}

/**
 * Checks a page of files, a few at once. The first failure of the service or the disk (not a difference: a file
 * that cannot be compared) stops the page and is returned, so the check stops with the page unrecorded.
 */
async function checkPage(
  files: readonly MirrorEntry[],
  ports: Omit<Parameters<typeof checkFile>[1], 'onProgress'>,
  onFile: (files: number, bytes: number) => void,
) {
  const queue = new PQueue({ concurrency: CONCURRENCY });
  const found: CheckFinding[] = [];
  let bytes = 0;
  let checked = 0;
  let failure: unknown;
  for (const entry of files) {
    void queue.add(async () => {
      if (ports.signal?.aborted || failure !== undefined) return;
      let moved = 0;
      try {
        const finding = await checkFile(entry, {
          ...ports,
          onProgress: (p) => {
            bytes += p.transferred - moved;
            moved = p.transferred;
          },
        });
        if (finding) found.push(finding);
        onFile(++checked, bytes);
      } catch (error) {
        failure ??= error;
      }
    });
  }
  await queue.onIdle();
  return { found, bytes, failure };
}

function fresh(options: CheckFolderOptions, sample: number | null): Checkpoint {
  const now = (options.now ?? (() => new Date()))().toISOString();
  const total = readMirror(options.mirror, (m) => m.fileCount()) ?? 0;
  const ids = sample === null ? undefined : (readMirror(options.mirror, (m) => m.randomFiles(sample).map((e) => e.remoteId)) ?? []);
  return { startedAt: now, sample, ...(ids ? { ids } : {}), after: 0, checked: 0, total: ids ? ids.length : total, bytes: 0, findings: [] };
}

/**
 * The next files to check, and how many of the check's files they stand for: the following page by id, or the
 * sample's next ones (a file no longer synced since it was picked is passed over).
 */
function nextPage(mirror: string, point: Checkpoint): { files: MirrorEntry[]; consumed: number } {
  if (!existsSync(mirror)) return { files: [], consumed: 0 };
  if (point.ids === undefined) {
    const files = readMirror(mirror, (m) => m.filesAfter(point.after, PAGE)) ?? [];
    return { files, consumed: files.length };
  }
  const ids = point.ids.slice(point.checked, point.checked + PAGE);
  const files = readMirror(mirror, (m) => ids.map((id) => m.itemById(id)).filter((e): e is MirrorEntry => e?.type === 'file')) ?? [];
  return { files, consumed: ids.length };
}
