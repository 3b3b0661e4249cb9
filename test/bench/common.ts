/**
 * Shared pieces of the benchmarks (docs/design.md §7): sizes from the environment, temp folders, a reference server in
 * a process of its own, synthetic trees on disk and in the server's database, timing and memory sampling, and the
 * line protocol a benchmark process uses to hand its figures to `run.ts`.
 *
 * Nothing here asserts a time: a benchmark measures, compares with its target and reports pass or miss.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { DriveClient } from '../../main/api/client.js';
import { SyncEngine } from '../../main/sync/engine/engine.js';
import { Mirror } from '../../main/sync/trees/mirror.js';
import type { BaseItem } from '../../main/sync/model/types.js';
import { tempDir as newTempDir } from '../helpers/temp.js';

export const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BENCH_DIR = join(PROJECT, 'test', 'bench');

// --- sizes ---------------------------------------------------------------------------------------------------

export const QUICK = process.env.BENCH_QUICK === '1' || process.env.BENCH_QUICK === 'true';

export function intFromEnv(name: string, full: number, quick: number): number {
  const raw = process.env[name];
  if (raw !== undefined && raw.trim() !== '') {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer (got ${raw})`);
    return value;
  }
  return QUICK ? quick : full;
}

/** docs/design.md §7's sizes; BENCH_QUICK=1 shrinks them for a smoke run; each variable overrides either. */
export const SIZES = {
  files: intFromEnv('BENCH_FILES', 100_000, 2_000),
  uploadFiles: intFromEnv('BENCH_UPLOAD_FILES', 10_000, 300),
  bigMb: intFromEnv('BENCH_BIG_MB', 1024, 64),
  /** Saves timed by the save-to-server benchmark. */
  saves: intFromEnv('BENCH_SAVES', 20, 10),
  /** Timed repetitions of the benchmarks cheap enough to repeat (rescan, listing). */
  reps: intFromEnv('BENCH_REPS', 5, 3),
  /** Timed repetitions of the upload benchmark (each side, fresh server each time). */
  uploadReps: intFromEnv('BENCH_UPLOAD_REPS', 3, 2),
};

// --- results ---------------------------------------------------------------------------------------------------

export interface BenchResult {
  /** Short id of the target, e.g. `rescan`. */
  id: string;
  /** The target as docs/design.md §7 words it. */
  target: string;
  /** What was measured on, e.g. `100,000 files in 100 folders`. */
  size: string;
  /** The figure compared with the goal, with its unit. */
  measured: string;
  /** The goal, e.g. `≤ 2.0×`. */
  goal: string;
  /** null: measured but not comparable (e.g. the run was invalid). */
  pass: boolean | null;
  /** Further figures: components, breakdowns, raw timings. */
  details: string[];
}

const RESULT_PREFIX = 'BENCH_RESULT ';

/** Runs one benchmark as the main function of its process: prints its result for run.ts, exits 0, or 1 on error. */
export function benchmarkMain(fn: () => Promise<BenchResult>): void {
  fn().then(
    (result) => {
      process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`, () => process.exit(0));
    },
    (error: unknown) => {
      process.stderr.write(`benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}

export function parseResultLine(line: string): BenchResult | null {
  if (!line.startsWith(RESULT_PREFIX)) return null;
  return JSON.parse(line.slice(RESULT_PREFIX.length)) as BenchResult;
}

export function log(message: string): void {
  process.stdout.write(`  ${message}\n`);
}

// --- numbers ---------------------------------------------------------------------------------------------------

export const MiB = 1024 * 1024;

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentile, p in 0..100. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
export const secs = (value: number) => `${(value / 1000).toFixed(2)} s`;
export const mb = (bytes: number) => `${(bytes / MiB).toFixed(1)} MB`;
export const ratio = (value: number) => `${value.toFixed(2)}×`;
export const count = (n: number) => n.toLocaleString('en-US');
export const plural = (n: number, noun: string) => `${count(n)} ${noun}${n === 1 ? '' : 's'}`;

/** CPU time (user + system, all threads) this process used since `since`, in ms. */
export function cpuMs(since?: NodeJS.CpuUsage): { usage: NodeJS.CpuUsage; ms: number } {
  const usage = process.cpuUsage(since);
  return { usage, ms: (usage.user + usage.system) / 1000 };
}

/** CPU time (user + system) another process has used so far, in ms; null where /proc is not there. */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
const CLOCK_TICKS = 100; // USER_HZ on Linux

/** Wall time, this process's CPU and the server process's CPU over one run. */
export async function measured<T>(serverPid: number | undefined, fn: () => Promise<T>): Promise<{ ms: number; cpuMs: number; serverCpuMs: number | null; value: T }> {
  const cpu0 = process.cpuUsage();
  const server0 = processCpuMs(serverPid);
  const start = performance.now();
  const value = await fn();
  const ms = performance.now() - start;
  const server1 = processCpuMs(serverPid);
  return { ms, cpuMs: cpuMs(cpu0).ms, serverCpuMs: server0 === null || server1 === null ? null : server1 - server0, value };
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Full garbage collection when the process runs with --expose-gc; a no-op otherwise. */
export async function collectGarbage(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return;
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(50);
  }
}

/** Samples the process's RSS every `everyMs` and remembers the peak. */
export function rssSampler(everyMs = 50): { stop(): { peak: number; samples: number } } {
  let peak = process.memoryUsage.rss();
  let samples = 1;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
    samples++;
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage.rss());
      return { peak, samples: samples + 1 };
    },
  };
}

// --- temp folders ------------------------------------------------------------------------------------------------

const cleanups: Array<() => void | Promise<void>> = [];
let ownScratch: string | null = null;

/**
 * The run's scratch folder: BENCH_TMP from run.ts (shared, so the big tree is built once and run.ts removes it),
 * else one folder of this process's own, removed by `cleanup()`.
 */
export function scratchRoot(): string {
  const shared = process.env.BENCH_TMP;
  if (shared) {
    mkdirSync(shared, { recursive: true });
    return shared;
  }
  if (ownScratch === null) {
    const dir = newTempDir('bench');
    ownScratch = dir;
    cleanups.unshift(() => rmSync(dir, { recursive: true, force: true })); // runs last
  }
  return ownScratch;
}

/** A new folder under the scratch root, removed by `cleanup()` (also when the benchmark fails). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(scratchRoot(), `${prefix}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function onCleanup(fn: () => void | Promise<void>): void {
  cleanups.push(fn);
}

export async function cleanup(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop()!;
    try {
      await fn();
    } catch (error) {
      process.stderr.write(`cleanup: ${(error as Error).message}\n`);
    }
  }
}

// --- child processes --------------------------------------------------------------------------------------------

/** Arguments that run a TypeScript file of this project under node with tsx's loader. */
export function tsxArgs(file: string, nodeFlags: readonly string[] = []): string[] {
  return [...nodeFlags, '--import', 'tsx', file];
}

// --- the reference server in its own process -----------------------------------------------------------------------

export interface BenchServer {
  url: string;
  dataDir: string;
  process: ChildProcess;
  /** Registers an account through the API: its user id and bearer token. */
  register(email: string): Promise<{ id: number; token: string }>;
  close(): Promise<void>;
}

/**
 * The reference server in a process of its own (test/bench/server-child.ts), so its CPU and memory are not the
 * client's. It exits when this process closes its stdin, so it never outlives a killed benchmark.
 */
export async function startBenchServer(dataDir = tempDir('server'), profile = 'documents'): Promise<BenchServer> {
  const child = spawn(process.execPath, tsxArgs(join(BENCH_DIR, 'server-child.ts')), {
    cwd: PROJECT,
    env: { ...process.env, BENCH_SERVER_DATA: dataDir, BENCH_SERVER_PROFILE: profile },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      const match = /^listening on (\S+)$/.exec(line);
      if (match) resolveUrl(match[1]!);
      else reject(new Error(`server child said: ${line}`));
    });
    child.once('exit', (code) => reject(new Error(`server child exited with ${code}`)));
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.stdin!.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  onCleanup(close);
  // Through the project's own client: it answers alike whether the server nests the user (deployed) or not.
  const register = async (email: string) => {
    const { user, token } = await new DriveClient({ origin: url }).auth.register({ email, password: 'bench-password', tokenName: 'bench' });
    return { id: user.id, token };
  };
  return { url, dataDir, process: child, register, close };
}

// --- synthetic trees ---------------------------------------------------------------------------------------------

/** Files per leaf folder, leaf folders per group: 100,000 files are 10 groups × 10 folders × 1,000 files. */
export const FILES_PER_FOLDER = 1000;
export const FOLDERS_PER_GROUP = 10;

export interface LayoutFolder {
  index: number;
  path: string;
  name: string;
  /** Index of the parent folder in `folders`, or null at the root. */
  parent: number | null;
}

export interface LayoutFile {
  path: string;
  name: string;
  folder: number;
  size: number;
}

export interface Layout {
  folders: LayoutFolder[];
  files: LayoutFile[];
  describe: string;
}

/**
 * `n` files in nested folders: group-GG/folder-FFF/file-NNNNNN.txt. `sizeOf(i)` gives each file's size in bytes;
 * the content is derived from the index, so the same layout always writes the same bytes.
 */
export function layout(n: number, sizeOf: (i: number) => number = (i) => contentOf(i, 0).length): Layout {
  const folders: LayoutFolder[] = [];
  const files: LayoutFile[] = [];
  const leaves = Math.ceil(n / FILES_PER_FOLDER);
  const groups = Math.ceil(leaves / FOLDERS_PER_GROUP);
  const pad = (value: number, width: number) => String(value).padStart(width, '0');
  const groupIndex: number[] = [];
  for (let g = 0; g < groups; g++) {
    const name = `group-${pad(g, 2)}`;
    groupIndex.push(folders.length);
    folders.push({ index: folders.length, path: name, name, parent: null });
  }
  for (let leaf = 0; leaf < leaves; leaf++) {
    const parent = groupIndex[Math.floor(leaf / FOLDERS_PER_GROUP)]!;
    const name = `folder-${pad(leaf, 3)}`;
    const folder = folders.length;
    folders.push({ index: folder, path: `${folders[parent]!.path}/${name}`, name, parent });
    const first = leaf * FILES_PER_FOLDER;
    for (let i = first; i < Math.min(n, first + FILES_PER_FOLDER); i++) {
      const fileName = `file-${pad(i, 6)}.txt`;
      files.push({ path: `${folders[folder]!.path}/${fileName}`, name: fileName, folder, size: sizeOf(i) });
    }
  }
  return { folders, files, describe: `${plural(n, 'file')} in ${plural(leaves, 'folder')} of ${plural(groups, 'group')}` };
}

/** Deterministic content of file `i`: a short line, or `size` bytes of text when size > 0. */
export function contentOf(i: number, size: number): Buffer {
  const line = `drivesync bench file ${i}\n`;
  if (size <= 0) return Buffer.from(line);
  return Buffer.from(line.repeat(Math.ceil(size / line.length)).slice(0, size));
}

/** 1–4 KB, spread deterministically. */
export const smallSize = (i: number) => 1024 + ((i * 2654435761) % 3073);

/** Writes a layout under `root` (which must exist). */
export async function writeLayout(root: string, tree: Layout, sized: boolean): Promise<void> {
  for (const folder of tree.folders) mkdirSync(join(root, ...folder.path.split('/')), { recursive: true });
  const batch = 64;
  for (let i = 0; i < tree.files.length; i += batch) {
    await Promise.all(
      tree.files.slice(i, i + batch).map((file, k) => {
        const index = i + k;
        return writeFile(join(root, ...file.path.split('/')), contentOf(index, sized ? file.size : 0));
      }),
    );
  }
}

/**
 * The tree of `n` short files shared by the rescan and memory benchmarks, built once per run under BENCH_TMP
 * (its `.ready` marker sits beside it, not inside).
 */
export async function sharedTree(n: number): Promise<{ root: string; tree: Layout }> {
  const tree = layout(n);
  const root = join(scratchRoot(), `tree-${n}`);
  const marker = `${root}.ready`;
  if (!existsSync(marker)) {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    const { ms: took } = await timed(() => writeLayout(root, tree, false));
    log(`wrote ${tree.describe} in ${secs(took)}`);
    writeFileSync(marker, '');
  }
  return { root, tree };
}

/** Every path below `root` (relative, '/'-separated), for checks. */
export async function listRelative(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const abs = join(dir, entry.name);
      out.push(relative(root, abs).split('\\').join('/'));
      if (entry.isDirectory()) await walk(abs);
    }
  };
  await walk(root);
  return out;
}

// --- seeding the server's database ------------------------------------------------------------------------------

export const SEED_TIMESTAMP = '2026-01-01T00:00:00.000000Z';

export interface SeededIds {
  folderIds: number[];
  fileIds: number[];
}

/**
 * Inserts a layout's folders and files as entries of `ownerId` straight into the server's SQLite (one
 * transaction), with the ids, parents and materialised paths server/entries.ts would give them. The server process
 * keeps running; WAL lets both connections work. No content is stored: these entries are listed, never downloaded.
 */
export function seedServer(dataDir: string, ownerId: number, tree: Layout, parentId: number | null = null): SeededIds {
  const db = new Database(join(dataDir, 'server.sqlite'));
  try {
    db.pragma('busy_timeout = 10000');
    const parentPath = parentId === null ? null : (db.prepare('SELECT path FROM entries WHERE id = ?').get(parentId) as { path: string }).path;
    const insert = db.prepare(
      `INSERT INTO entries (id, name, file_name, file_size, parent_id, owner_id, mime, type, description, workspace_id, path,
         deleted_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, 0, ?, NULL, ?, ?)`,
    );
    const ids: SeededIds = { folderIds: [], fileIds: [] };
    db.transaction(() => {
      let next = ((db.prepare('SELECT MAX(id) AS m FROM entries').get() as { m: number | null }).m ?? 0) + 1;
      const paths: string[] = [];
      for (const folder of tree.folders) {
        const id = next++;
        const parent = folder.parent === null ? parentId : ids.folderIds[folder.parent]!;
        const above = folder.parent === null ? parentPath : paths[folder.parent]!;
        const path = above === null ? String(id) : `${above}/${id}`;
        paths.push(path);
        ids.folderIds.push(id);
        insert.run(id, folder.name, folder.name, 0, parent, ownerId, null, 'folder', path, SEED_TIMESTAMP, SEED_TIMESTAMP);
      }
      for (const file of tree.files) {
        const id = next++;
        ids.fileIds.push(id);
        insert.run(
          id,
          file.name,
          `bench-${id}`,
          file.size,
          ids.folderIds[file.folder]!,
          ownerId,
          'text/plain',
          'text',
          `${paths[file.folder]!}/${id}`,
          SEED_TIMESTAMP,
          SEED_TIMESTAMP,
        );
      }
    })();
    return ids;
  } finally {
    db.close();
  }
}

// --- plain-JS copies of the project's modules, for processes whose memory is measured ----------------------------

/**
 * Transpiles main/** and the given bench files to JavaScript under `outDir` (layout preserved, ESM), so a process
 * measured for memory runs on plain node: tsx's loader runs in a thread of its own that alone adds ~35 MB RSS.
 * Returns the path of the first entry's .js.
 */
export async function transpileForNode(outDir: string, entries: readonly string[]): Promise<string[]> {
  const ts = (await import('typescript')).default;
  const sources: string[] = [];
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'app') await walk(abs); // main/app is Electron only
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) sources.push(abs);
    }
  };
  await walk(join(PROJECT, 'main'));
  for (const entry of entries) sources.push(entry);
  for (const source of sources) {
    const output = ts.transpileModule(await readFile(source, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false, isolatedModules: true },
      fileName: source,
    });
    const target = join(outDir, relative(PROJECT, source)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    await writeFile(target, output.outputText);
  }
  writeFileSync(join(outDir, 'package.json'), JSON.stringify({ type: 'module' }));
  // Packages resolve from the project's node_modules.
  if (!existsSync(join(outDir, 'node_modules'))) symlinkSync(join(PROJECT, 'node_modules'), join(outDir, 'node_modules'), 'dir');
  return entries.map((entry) => join(outDir, relative(PROJECT, entry)).replace(/\.ts$/, '.js'));
}

/** A SyncEngine on `root` for a benchmark: a mirror of its own in a temp dir, and a trash that must never be used. */
export function benchEngine(root: string, origin: string, token: string, client = new DriveClient({ origin, token })): SyncEngine {
  return new SyncEngine({
    root,
    client,
    mirrorPath: join(tempDir('engine-state'), 'mirror.sqlite'),
    hostname: 'bench',
    trash: async () => {
      throw new Error('nothing should be trashed');
    },
  });
}

/**
 * A folder of SIZES.files files on disk, the same tree on the server (seeded straight into its SQLite) and an engine
 * mirror whose base says all of it is synced: an engine started on it finds everything in sync without a transfer.
 */
export async function seedSyncedFolder(name: string) {
  const { root, tree } = await sharedTree(SIZES.files);
  const server = await startBenchServer();
  const account = await server.register(`${name}@example.com`);
  const { ms: seedMs, value: ids } = await timed(async () => seedServer(server.dataDir, account.id, tree));
  log(`seeded ${count(tree.files.length + tree.folders.length)} server entries in ${secs(seedMs)}`);

  const state = tempDir(`${name}-state`);
  const mirrorPath = join(state, 'mirror.sqlite');
  const { ms: mirrorMs } = await timed(async () => {
  const items: BaseItem[] = [];
  const stats = (path: string) => lstatSync(join(root, ...path.split('/')));
    for (const folder of tree.folders) {
    const s = stats(folder.path);
      items.push({
        remoteId: ids.folderIds[folder.index]!,
        parentId: folder.parent === null ? null : ids.folderIds[folder.parent]!,
        remoteName: folder.name,
        path: folder.path,
        type: 'folder',
        inode: s.ino,
        size: 0,
        mtimeMs: s.mtimeMs,
        hash: null,
        remoteSize: 0,
        remoteUpdatedAt: SEED_TIMESTAMP,
      });
    }
    tree.files.forEach((file, i) => {
    const s = stats(file.path);
      if (s.size !== file.size) throw new Error(`${file.path} is ${s.size} bytes, the layout says ${file.size}`);
      items.push({
        remoteId: ids.fileIds[i]!,
        parentId: ids.folderIds[file.folder]!,
        remoteName: file.name,
        path: file.path,
        type: 'file',
        inode: s.ino,
        size: s.size,
        mtimeMs: s.mtimeMs,
        hash: null,
        remoteSize: file.size,
        remoteUpdatedAt: SEED_TIMESTAMP,
      });
    });
  const mirror = new Mirror(mirrorPath);
    mirror.commit(null, items, []);
    mirror.close();
  });
  log(`seeded the engine's mirror in ${secs(mirrorMs)}`);

  return { root, tree, server, account, mirrorPath };
}
