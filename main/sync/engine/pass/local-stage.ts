/**
 * The local stage of a pass: the scan of the whole folder, or of the paths the watcher named, and what it found that
 * is not synced (symbolic links, ignored names, what cannot be read), kept from one pass to the next.
 */
import { join } from 'node:path';
import { putBackStaged } from '../../execute/executor.js';
import { loadIgnoreRules, refreshPaths, scanLocal, type IgnoreRule, type ScanOptions, type ScanResult } from '../../local/scan.js';
import { STATE_DIR } from '../../local/state-dir.js';
import { isConflictedCopy, isWithin, LINUX_NAMES, type NameRules } from '../../model/names.js';
import type { Clock, FileSystem, VolumeTraits } from '../../local/ports.js';
import type { LocalItem, RelPath } from '../../model/types.js';
import type { FolderTrees } from './inputs.js';
import type { ItemError } from './summary.js';
import type { ToldOnce } from './told.js';

export const SYMLINK = 'symbolic links are not synced';
const unreadableMessage = (reason: string) => `cannot be read: ${reason}`;

export class LocalStage {
  isIgnored: IgnoreRule = () => false;
  /** Paths the watcher named that no scan has looked at yet (a pass that ended early leaves them to the next). */
  readonly named = new Set<RelPath>();
  /** Local paths the last scans could not read, with the reason. */
  private readonly unreadable = new Map<RelPath, string>();
  /** Symbolic links the last scans found (left out by design). */
  readonly symlinks = new Set<RelPath>();
  /** What the ignore rules left out at the last full scan. */
  ignored: ScanResult['ignored'] = { paths: [], count: 0 };
  private scanned = false;
  /** How the folder's volume names items, asked once it can be written to (until then, as Linux's). */
  private volume: VolumeTraits | null = null;
  /** How long the last full scan took, when this pass made one. */
  fullScanMs: number | undefined;
  /** The conflicted copies the full scan of this pass found (undefined: it made none). */
  conflictCopies: RelPath[] | undefined;

  constructor(
    private readonly root: string,
    private readonly fs: FileSystem,
    private readonly clock: Clock,
    private readonly trees: FolderTrees,
    private readonly told: ToldOnce,
    private readonly caseInsensitiveOption: boolean | undefined,
  ) {}

  /** Names that differ only by case are one local name: as the options say, else as the volume answered. */
  get caseInsensitive(): boolean {
    return this.caseInsensitiveOption ?? this.volume?.caseInsensitive ?? false;
  }

  /** How the folder's volume names items, as the planner and the executor are to name them. */
  get names(): NameRules {
    const volume = this.volume ?? LINUX_NAMES;
    return { caseInsensitive: this.caseInsensitive, normalisesUnicode: volume.normalisesUnicode, windowsNames: volume.windowsNames };
  }

  /** The folder's watcher died with it: when the folder is back, it is scanned in full. */
  forget(): void {
    this.named.clear();
    this.scanned = false;
  }

  /** What an earlier pass left half done is put back, and the volume asked how it compares names. */
  async prepare(): Promise<void> {
    this.fullScanMs = undefined;
    this.conflictCopies = undefined;
    await this.fs.rm(join(this.root, STATE_DIR, 'tmp'), { recursive: true, force: true });
    await putBackStaged(this.root, this.fs);
    this.volume ??= await this.askVolume().catch(() => null);
  }

  /** How the scan reads the disk: through the port, and knowing whether the volume finds names by other spellings. */
  diskLookups(): Pick<ScanOptions, 'readDir' | 'lstat' | 'hash' | 'foldsNames' | 'normalises'> {
    const normalises = this.volume?.normalisesUnicode ?? false;
    const lookups = { readDir: this.fs.readDir, hash: this.fs.hash, foldsNames: this.caseInsensitive || normalises, normalises };
    return this.fs.lstat ? { ...lookups, lstat: this.fs.lstat } : lookups;
  }

  private async askVolume(): Promise<VolumeTraits> {
    const dir = join(this.root, STATE_DIR);
    await this.fs.mkdir(dir, { recursive: true });
    return (await this.fs.volume?.(dir)) ?? LINUX_NAMES;
  }

  /** Scans the whole folder, or looks again at the paths the watcher named; returns what cannot be read now. */
  async scan(full: boolean): Promise<ItemError[]> {
    this.isIgnored = await loadIgnoreRules(this.root);
    const base = this.trees.base;
    const options = { isIgnored: this.isIgnored, ...this.diskLookups(), ...base.scanLookup() };
    let found: { symlinks: RelPath[]; unreadable: Array<{ path: RelPath; reason: string }> } = { symlinks: [], unreadable: [] };
    // A name that is not valid UTF-8 reaches the watcher garbled (U+FFFD) and cannot be looked at by that name: the
    // scan of its folder reports it, and tells when it is gone or renamed.
    if ([...this.named].some((path) => path.includes('\uFFFD'))) full = true;
    if (full || !this.scanned) {
      const started = this.clock.now().getTime();
      const result = await scanLocal(this.root, options, this.trees.local);
      this.fullScanMs = this.clock.now().getTime() - started;
      this.trees.local = result.items;
      this.conflictCopies = [];
      for (const path of result.items.keys()) if (isConflictedCopy(path)) this.conflictCopies.push(path);
      this.scanned = true;
      this.named.clear();
      this.unreadable.clear();
      this.symlinks.clear();
      this.ignored = result.ignored;
      found = result;
    } else if (this.named.size > 0) {
      const paths = [...this.named];
      this.named.clear();
      found = await refreshPaths(this.root, this.trees.local, paths, options);
      // The tree holds names in NFC on a volume that normalises (HFS+ lists them decomposed, as the watcher names them).
      const named = this.volume?.normalisesUnicode ? paths.map((p) => p.normalize('NFC')) : paths;
      const looked = (path: RelPath) => named.some((p) => p === path || isWithin(path, p));
      for (const path of this.unreadable.keys()) if (looked(path)) this.unreadable.delete(path);
      for (const path of this.symlinks) if (looked(path)) this.symlinks.delete(path);
    }
    for (const path of found.symlinks) {
      this.told.skipped(path, SYMLINK, true);
      this.symlinks.add(path);
    }
    for (const u of found.unreadable) {
      // In the words the pass's summary uses, so a front end that tells each failure once tells this one once.
      this.told.skipped(u.path, unreadableMessage(u.reason), false);
      this.unreadable.set(u.path, u.reason);
    }
    // Still unreadable until a scan reads it: every pass until then is not in sync.
    return [...this.unreadable].map(([path, reason]) => ({ path, message: unreadableMessage(reason) }));
  }

  /** A folder moved aside at `absolutePath` (to be trashed), scanned as if it were at `path`. */
  async scanFolder(absolutePath: string, path: RelPath): Promise<Map<RelPath, LocalItem>> {
    const at = (p: RelPath) => (p === '' ? path : `${path}/${p}`);
    const isIgnored: IgnoreRule = (p, type) => this.isIgnored(at(p), type);
    const synced = this.trees.base.scanLookup();
    const options = { isIgnored, ...this.diskLookups(), needsHash: () => false, isSynced: (p: RelPath) => synced.isSynced(at(p)) };
    const { items } = await scanLocal(absolutePath, options);
    const out = new Map<RelPath, LocalItem>();
    for (const [p, item] of items) out.set(at(p), { ...item, path: at(p) });
    return out;
  }
}
