/**
 * The watcher alone on BENCH_FILES files (1,000 a folder): how long `watchTree` takes to be ready and what the
 * process weighs once it watches, with each backend: the platform's (on Linux one inotify watch per folder,
 * folder-watches.ts) and @parcel/watcher (docs/design.md §2: 2.6 at 0.63 s and 71 MB, chokidar 6 at 6.8 s and
 * 184 MB, on 100,000 files). Goal: live (a file written in the last folder is reported) and within the idle budget
 * of docs/design.md §7 (120 MB for the whole engine).
 *
 * The measured process is this file again, on plain node (the sources transpiled, so tsx's loader thread is not
 * counted), importing nothing but the watcher; it prints one `WATCH {json}` line.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const MB = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

interface ChildReport {
  /** RSS of node with nothing loaded but this file (after GC). */
  bare: number;
  readyMs: number;
  /** RSS once ready and idle (after GC), and the peak while getting ready. */
  idle: number;
  peak: number;
  heapUsed: number;
  /** How long a file written in the last folder took to be reported (stability wait included); null if never. */
  reportedMs: number | null;
}

async function measure(root: string, probe: string): Promise<ChildReport> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const settle = async () => {
    for (let i = 0; i < 4; i++) {
      gc?.();
      await sleep(100);
    }
    return process.memoryUsage();
  };
  const bare = (await settle()).rss;
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const { createWatchTree, parcelWatcher, watchTree: platformTree } = await import('../../main/sync/local/watcher.js');
  const watchTree = process.env.WATCH_BACKEND === 'parcel' ? createWatchTree(parcelWatcher) : platformTree;
  let reportedAt: number | null = null;
  const start = performance.now();
  const watcher = await watchTree(root, {
    ignoreDirs: ['.drivesync'],
    onChange: (paths) => {
      if (paths.includes(probe)) reportedAt = performance.now();
    },
    onError: (error) => process.stderr.write(`watcher: ${error.message}\n`),
  });
  const readyMs = performance.now() - start;
  await sleep(1000);
  const idle = await settle();
  clearInterval(sampler);
  const written = performance.now();
  writeFileSync(join(root, ...probe.split('/')), 'written while watched');
  for (let waited = 0; waited < 10_000 && reportedAt === null; waited += 20) await sleep(20);
  await watcher.close();
  const reported = reportedAt as number | null;
  return {
    bare: MB(bare),
    readyMs: Math.round(readyMs),
    idle: MB(idle.rss),
    peak: MB(peak),
    heapUsed: MB(idle.heapUsed),
    reportedMs: reported === null ? null : Math.round(reported - written),
  };
}

if (process.env.WATCH_ROOT) {
  const report = await measure(process.env.WATCH_ROOT, process.env.WATCH_PROBE!);
  process.stdout.write(`WATCH ${JSON.stringify(report)}\n`, () => process.exit(0));
} else {
  const { spawn } = await import('node:child_process');
  const { rmSync } = await import('node:fs');
  const { createInterface } = await import('node:readline');
  const { ENGINE_V8_FLAGS } = await import('../../main/sync/engine/process-flags.js');
  const common = await import('./common.js');
  const { BENCH_DIR, PROJECT, SIZES, benchmarkMain, cleanup, log, secs, sharedTree, tempDir, transpileForNode } = common;
  const LIMIT_MB = 150;

  benchmarkMain(async () => {
    try {
      const { root, tree } = await sharedTree(SIZES.files);
      const last = tree.folders[tree.folders.length - 1]!;
      const probe = `${last.path}/watch-probe.txt`;
      rmSync(join(root, ...probe.split('/')), { force: true });
      const [script] = await transpileForNode(tempDir('watch-js'), [join(BENCH_DIR, 'watch.ts')]);
      const run = async (backend: 'platform' | 'parcel'): Promise<ChildReport> => {
        const child = spawn(process.execPath, ['--expose-gc', ...ENGINE_V8_FLAGS, script!], {
          cwd: PROJECT,
          env: { ...process.env, WATCH_ROOT: root, WATCH_PROBE: probe, WATCH_BACKEND: backend },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let report: ChildReport | null = null;
        const lines = createInterface({ input: child.stdout! });
        lines.on('line', (line) => {
          if (line.startsWith('WATCH ')) report = JSON.parse(line.slice('WATCH '.length)) as ChildReport;
          else log(line);
        });
        const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
        await new Promise((resolve) => setImmediate(resolve));
        rmSync(join(root, ...probe.split('/')), { force: true });
        const r = report as ChildReport | null;
        if (code !== 0 || r === null) throw new Error(`the watching process exited with ${code}`);
        return r;
      };
      const platform = await run('platform');
      const parcel = await run('parcel');
      const name = process.platform === 'linux' ? 'one inotify watch per folder' : '@parcel/watcher';
      const describe = (what: string, r: ChildReport) => [
        `${what}: ready in ${secs(r.readyMs)}; RSS idle ${r.idle} MB (node alone ${r.bare} MB, so the watcher ` +
          `${(r.idle - r.bare).toFixed(1)} MB), peak ${r.peak} MB, heap used ${r.heapUsed} MB; ` +
          (r.reportedMs !== null ? `a file written in the last folder reported after ${r.reportedMs} ms (300 ms of it the stability wait)` : 'NOT LIVE: a file written in the last folder was not reported within 10 s'),
      ];
      return {
        id: 'watch',
        target: `the watcher ready on the tree, live, within the idle budget (≤ ${LIMIT_MB} MB)`,
        size: tree.describe,
        measured: `${name}: ready in ${secs(platform.readyMs)}, ${platform.idle.toFixed(1)} MB RSS`,
        goal: `live, ≤ ${LIMIT_MB} MB`,
        pass: platform.reportedMs !== null && platform.idle <= LIMIT_MB,
        details: [
          ...describe(`${name} (${process.platform}, what drivesync uses)`, platform),
          ...describe('@parcel/watcher', parcel),
          'plain node 20 on transpiled sources, the engine V8 flags, nothing loaded but the watcher',
        ],
      };
    } finally {
      await cleanup();
    }
  });
}
