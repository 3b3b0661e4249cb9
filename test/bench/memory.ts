/**
 * Where an idle engine's memory goes, at 100,000 synced files (docs/design.md §7: ≤ 120 MB). A breakdown on a seeded mirror
 * after a forced GC; the figure a user sees, after a real initial sync and two minutes of polling, is `field`'s.
 *
 * Setup, in this process: the shared tree of BENCH_FILES short files on disk; the same tree seeded straight into
 * the server's SQLite (the server runs in its own process); and the engine's mirror seeded with the matching base
 * rows (its `base` table, through Mirror.commit), so the engine's first pass finds everything in sync instead of
 * merging 100,000 files. Then a child process on plain node (the project's sources transpiled to JS, so tsx's
 * loader thread is not counted), with the V8 flags every engine process gets (ENGINE_V8_FLAGS), constructs a
 * SyncEngine, runs a full pass, then `start()` (another full pass, the watcher and the poll timer), idles
 * MEM_IDLE_MS (1 s), collects garbage and reports its RSS.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ENGINE_V8_FLAGS } from '../../main/sync/engine/process-flags.js';
import {
  BENCH_DIR,
  benchmarkMain,
  cleanup,
  count,
  log,
  PROJECT,
  secs,
  seedSyncedFolder,
  tempDir,
  transpileForNode,
  type BenchResult,
} from './common.js';

interface Figures {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

interface Report {
  synced: number;
  firstPass: { ms: number; done: number; inSync: boolean; failed: number };
  secondPass: { ms: number; done: number; inSync: boolean; failed: number };
  loaded: Figures;
  baseLoaded: Figures;
  afterPass: Figures;
  idle: Figures;
  peakRss: number;
  idleHandles: Record<string, number>;
  stopped: Figures;
  treeSizes: { base: number; local: number; remote: number };
  treeHeap: { base: number; local: number; remote: number };
  emptied: Figures;
}

interface WatcherReport {
  readyMs: number;
  loaded: Figures;
  idle: Figures;
  peakRss: number;
  handles: Record<string, number>;
}

const handleList = (handles: Record<string, number>) =>
  Object.entries(handles)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${count(n)} ${kind}`)
    .join(', ');

const LIMIT_MB = 120;

benchmarkMain(async (): Promise<BenchResult> => {
  try {
    const { root, tree, server, account, mirrorPath } = await seedSyncedFolder('memory');
    const [script] = await transpileForNode(tempDir('memory-js'), [join(BENCH_DIR, 'memory-engine.ts')]);
    const runChild = async <T>(mode: string): Promise<T> => {
      const child = spawn(process.execPath, ['--expose-gc', ...ENGINE_V8_FLAGS, script!], {
        cwd: PROJECT,
        env: { ...process.env, MEM_MODE: mode, MEM_URL: server.url, MEM_TOKEN: account.token, MEM_ROOT: root, MEM_MIRROR: mirrorPath },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let report: T | null = null;
      const lines = createInterface({ input: child.stdout! });
      lines.on('line', (line) => {
        if (line.startsWith('MEMORY ')) report = JSON.parse(line.slice('MEMORY '.length)) as T;
        else log(line);
      });
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      await new Promise((resolve) => setImmediate(resolve));
      if (code !== 0 || report === null) throw new Error(`the ${mode} process exited with ${code}`);
      return report;
    };
    const r = await runChild<Report>('engine');
    const w = await runChild<WatcherReport>('watcher');
    const valid = r.firstPass.inSync && r.firstPass.done === 0 && r.secondPass.inSync && r.secondPass.done === 0;
    const show = (f: Figures) => `RSS ${f.rss} MB (heap used ${f.heapUsed} of ${f.heapTotal} MB, external ${f.external} MB)`;
    return {
      id: 'memory',
      target: 'where idle memory goes with everything synced (seeded mirror, base held, forced GC: a breakdown)',
      size: `${count(r.synced)} synced items (${tree.describe})`,
      measured: valid ? `${r.idle.rss.toFixed(1)} MB` : `${r.idle.rss.toFixed(1)} MB, but the seeded passes were not in sync`,
      // Not the user's figure: base is still held (an engine lets it go after a minute idle) and the process lacks
      // bin/drivesync.js's malloc settings; `field` measures the goal as users run it.
      goal: `none here (≤ ${LIMIT_MB} MB is field's)`,
      pass: null,
      details: [
        `idle after start() (second full pass, watcher on, GC): ${show(r.idle)}`,
        `after the first full pass, before the watcher (GC): ${show(r.afterPass)}`,
        `engine constructed, mirror loaded (GC): ${show(r.baseLoaded)}`,
        `node with the engine's modules loaded, nothing else (GC): ${show(r.loaded)}`,
        `peak RSS during the passes ${r.peakRss} MB; passes took ${secs(r.firstPass.ms)} and ${secs(r.secondPass.ms)}` +
          (valid ? '' : `; NOT VALID: passes did ${r.firstPass.done} and ${r.secondPass.done} operations`),
        `open handles when idle: ${handleList(r.idleHandles)}`,
        `engine stopped (watcher closed, trees kept): ${show(r.stopped)}; heap held by the trees: ` +
          `remote ${r.treeHeap.remote} MB (${count(r.treeSizes.remote)} items), local ${r.treeHeap.local} MB (${count(r.treeSizes.local)}), ` +
          `base ${r.treeHeap.base} MB (${count(r.treeSizes.base)}); all three dropped: ${show(r.emptied)}`,
        `the watcher alone on the same tree with the engine's options: ${show(w.idle)} idle (from ${w.loaded.rss} MB), ` +
          `peak ${w.peakRss} MB, ready in ${secs(w.readyMs)}; handles: ${handleList(w.handles)}`,
        'plain node 20 on transpiled sources (no tsx loader); the server runs in another process',
      ],
    };
  } finally {
    await cleanup();
  }
});
