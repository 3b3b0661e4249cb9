/**
 * The process measured by the idle-memory benchmark (memory.ts starts it, on plain node, with --expose-gc): it
 * hosts one SyncEngine and nothing else. It prints progress lines and one `MEMORY {json}` line.
 *
 * Imports only the engine and the API client, so what it weighs is what the engine weighs plus node itself.
 */
import { DriveClient } from '../../main/api/client.js';
import { SyncEngine } from '../../main/sync/engine/engine.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

async function settle(): Promise<NodeJS.MemoryUsage> {
  for (let i = 0; i < 4; i++) {
    gc!();
    await sleep(100);
  }
  return process.memoryUsage();
}

const say = (message: string) => process.stdout.write(`${message}\n`);
const MB = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const figures = (m: NodeJS.MemoryUsage) => ({
  rss: MB(m.rss),
  heapUsed: MB(m.heapUsed),
  heapTotal: MB(m.heapTotal),
  external: MB(m.external),
  arrayBuffers: MB(m.arrayBuffers),
});

/** Open handles by kind (fs.watch handles show as FSEventWrap). */
const resources = () => {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
};

let peak = process.memoryUsage.rss();
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 50);

if (process.env.MEM_MODE === 'watcher') {
  // The engine's watcher alone, with the options the engine gives it: what it weighs without the engine.
  const loaded = await settle();
  const { watchTree } = await import('../../main/sync/local/watcher.js');
  const root = env('MEM_ROOT');
  const start = performance.now();
  const watcher = await watchTree(root, { ignoreDirs: ['.drivesync'], onChange: () => undefined, onError: () => undefined });
  const readyMs = performance.now() - start;
  await sleep(1000);
  const idle = await settle();
  clearInterval(sampler);
  const handles = resources();
  process.stdout.write(
    `MEMORY ${JSON.stringify({ mode: 'watcher', readyMs: Math.round(readyMs), loaded: figures(loaded), idle: figures(idle), peakRss: MB(peak), handles })}\n`,
  );
  await watcher.close();
  process.exit(0);
}

const loaded = await settle();
const engine = new SyncEngine({
  root: env('MEM_ROOT'),
  client: new DriveClient({ origin: env('MEM_URL'), token: env('MEM_TOKEN') }),
  mirrorPath: env('MEM_MIRROR'),
  hostname: 'bench',
  trash: async () => {
    throw new Error('nothing should be trashed');
  },
  // No poll may fall inside the idle measurement.
  pollIntervalMs: 3_600_000,
});
const baseLoaded = await settle();
say(`engine constructed: ${engine.syncedCount} synced items loaded from the mirror`);

let start = performance.now();
const first = await engine.syncOnce({ fullScan: true });
const firstPassMs = performance.now() - start;
const afterPass = await settle();
say(`first pass (scan + listing + plan): ${(firstPassMs / 1000).toFixed(2)} s, ${first.done} operations, in sync: ${first.inSync}`);

start = performance.now();
const second = await engine.start(); // a second full pass, then the watcher and the poll timer: the app's idle state
const startMs = performance.now() - start;
await sleep(Number(process.env.MEM_IDLE_MS ?? 1000));
const idle = await settle();
clearInterval(sampler);
say(`start() (full pass + watcher): ${(startMs / 1000).toFixed(2)} s, ${second.done} operations, in sync: ${second.inSync}`);
const idleHandles = resources();
const synced = engine.syncedCount;

// Where the memory is: stop the engine (watcher closed), then drop its three trees one at a time.
await engine.stop();
const stopped = await settle();
// The trees live in the engine's folder state (engine/folder-state.ts, FolderState.trees).
const trees = (engine as unknown as { folder: { trees: { base: Map<unknown, unknown>; local: Map<unknown, unknown>; remote: Map<unknown, unknown> } } }).folder.trees;
const sizes = { base: trees.base.size, local: trees.local.size, remote: trees.remote.size };
trees.remote = new Map();
const noRemote = await settle();
trees.local = new Map();
const noLocal = await settle();
trees.base = new Map();
const noBase = await settle();

process.stdout.write(
  `MEMORY ${JSON.stringify({
    synced,
    firstPass: { ms: Math.round(firstPassMs), done: first.done, inSync: first.inSync, failed: first.failed.length },
    secondPass: { ms: Math.round(startMs), done: second.done, inSync: second.inSync, failed: second.failed.length },
    loaded: figures(loaded),
    baseLoaded: figures(baseLoaded),
    afterPass: figures(afterPass),
    idle: figures(idle),
    peakRss: MB(peak),
    idleHandles,
    stopped: figures(stopped),
    treeSizes: sizes,
    treeHeap: {
      remote: MB(stopped.heapUsed - noRemote.heapUsed),
      local: MB(noRemote.heapUsed - noLocal.heapUsed),
      base: MB(noLocal.heapUsed - noBase.heapUsed),
    },
    emptied: figures(noBase),
  })}\n`,
);
process.exit(0);
