/**
 * docs/design.md §7: the initial upload of 10,000 small files takes at most 1.1× the same requests sent by a bare script.
 *
 * The same folder of 1–4 KB files is uploaded twice per repetition, each time to a fresh server (new process, new
 * data folder) and account: once by a bare script — POST /folders for each folder, parents first, then one
 * multipart POST /uploads per file (parentId, relativePath, file), four requests at a time — and once by a
 * SyncEngine doing one `syncOnce({ fullScan: true })` on it with a fresh mirror (its default concurrency is 4).
 */
import { spawnSync } from 'node:child_process';
import { openAsBlob, rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { PassSummary } from '../../main/sync/engine/pass/summary.js';
import { hashFile } from '../../main/sync/local/scan.js';
import { Mirror } from '../../main/sync/trees/mirror.js';
import { plan } from '../../main/sync/plan/plan.js';
import type { BaseItem, LocalItem, RelPath } from '../../main/sync/model/types.js';
import {
  benchEngine,
  benchmarkMain,
  cleanup,
  count,
  layout,
  log,
  median,
  ms,
  ratio,
  secs,
  smallSize,
  SIZES,
  startBenchServer,
  tempDir,
  measured,
  timed,
  writeLayout,
  type BenchResult,
  type Layout,
} from './common.js';

const CONCURRENCY = 4;

async function pool<T>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

async function bareUpload(url: string, token: string, root: string, tree: Layout): Promise<void> {
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const folderIds: number[] = new Array<number>(tree.folders.length);
  const depthOf = (path: string) => path.split('/').length;
  const depths = [...new Set(tree.folders.map((f) => depthOf(f.path)))].sort((a, b) => a - b);
  for (const depth of depths) {
    await pool(
      tree.folders.filter((f) => depthOf(f.path) === depth),
      CONCURRENCY,
      async (folder) => {
        const response = await fetch(`${url}/api/v1/folders`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ name: folder.name, parentId: folder.parent === null ? null : folderIds[folder.parent] }),
        });
        const body = (await response.json()) as { folder?: { id: number } };
        if (!response.ok || !body.folder) throw new Error(`POST /folders ${folder.path}: ${response.status}`);
        folderIds[folder.index] = body.folder.id;
      },
    );
  }
  await pool(tree.files, CONCURRENCY, async (file) => {
    const form = new FormData();
    form.append('parentId', String(folderIds[file.folder]));
    form.append('relativePath', file.name);
    form.append('file', await openAsBlob(join(root, ...file.path.split('/'))), file.name);
    const response = await fetch(`${url}/api/v1/uploads`, { method: 'POST', headers, body: form });
    await response.json();
    if (response.status !== 201) throw new Error(`POST /uploads ${file.path}: ${response.status}`);
  });
}

/**
 * What the engine does per uploaded file besides the request, each step timed on its own: hashing the file and
 * stat-ing it (executor's localItem, then the upload's own stat), the intent journal and base row (two SQLite
 * write transactions), and planning the pass.
 */
async function engineSteps(root: string, tree: Layout): Promise<string> {
  const abs = (path: string) => join(root, ...path.split('/'));
  const perFile = (t: number) => `${((t / tree.files.length) * 1000).toFixed(0)} µs`;
  const hashing = await timed(() => pool(tree.files, CONCURRENCY, async (f) => void (await hashFile(abs(f.path)))));
  const stats = await timed(() => pool(tree.files, CONCURRENCY, async (f) => void (await stat(abs(f.path)))));
  const state = tempDir('steps-state');
  const mirror = new Mirror(join(state, 'mirror.sqlite'));
  const journal = await timed(async () => {
    tree.files.forEach((f, i) => {
      const op = { kind: 'upload', rule: 'N2', path: f.path, parentId: 1, name: f.name };
      const intent = mirror.beginIntent('upload', op, new Date().toISOString());
      const item: BaseItem = {
        remoteId: i + 1,
        parentId: 1,
        remoteName: f.name,
        path: f.path,
        type: 'file',
        inode: i + 1,
        size: f.size,
        mtimeMs: 0,
        hash: 'x'.repeat(64),
        remoteSize: f.size,
        remoteUpdatedAt: '',
      };
      mirror.commit(intent, [item], []);
    });
  });
  mirror.close();
  const local = new Map<RelPath, LocalItem>();
  for (const folder of tree.folders) local.set(folder.path, { path: folder.path, type: 'folder', inode: 0, size: 0, mtimeMs: 0 });
  tree.files.forEach((f, i) => local.set(f.path, { path: f.path, type: 'file', inode: i + 1, size: f.size, mtimeMs: 0 }));
  const planning = await timed(async () => plan({ base: new Map(), local, remote: new Map() }));
  return (
    `sha256 ${perFile(hashing.ms)}, one stat ${perFile(stats.ms)} (the engine does two), ` +
    `journal + base row ${perFile(journal.ms)}, plan() over the whole tree ${ms(planning.ms)} (${planning.value.operations.length} ops; run once per iteration)`
  );
}

/**
 * Removes a finished run's server data and flushes the file system, so the next run does not pay for writing back
 * this one's 10,000 files (without this the first run of a benchmark was always the fastest).
 */
function removeAndFlush(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  spawnSync('sync', { stdio: 'ignore' });
}

/** Entries of the account in the server's database (checked after each run). */
function entryCount(dataDir: string, ownerId: number): number {
  const db = new Database(join(dataDir, 'server.sqlite'), { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM entries WHERE owner_id = ? AND deleted_at IS NULL').get(ownerId) as { n: number }).n;
  } finally {
    db.close();
  }
}

benchmarkMain(async (): Promise<BenchResult> => {
  try {
    const tree = layout(SIZES.uploadFiles, smallSize);
    const root = tempDir('upload-src');
    await writeLayout(root, tree, true);
    spawnSync('sync', { stdio: 'ignore' });
    const totalBytes = tree.files.reduce((sum, f) => sum + f.size, 0);
    const expected = tree.files.length + tree.folders.length;
    log(`wrote ${tree.describe}, ${(totalBytes / 2 ** 20).toFixed(1)} MB`);

    const times = { bare: [] as number[], engine: [] as number[] };
    const cpu = { bare: [] as number[], engine: [] as number[] };
    const serverCpu = { bare: [] as number[], engine: [] as number[] };
    const runBare = async (rep: number) => {
      const dataDir = tempDir('server-bare');
      const server = await startBenchServer(dataDir);
      const account = await server.register(`bare${rep}@example.com`);
      const run = await measured(server.process.pid, () => bareUpload(server.url, account.token, root, tree));
      const n = entryCount(dataDir, account.id);
      await server.close();
      removeAndFlush(dataDir);
      if (n !== expected) throw new Error(`the bare script left ${n} entries, expected ${expected}`);
      times.bare.push(run.ms);
      cpu.bare.push(run.cpuMs);
      serverCpu.bare.push(run.serverCpuMs ?? NaN);
    };
    const runEngine = async (rep: number) => {
      const dataDir = tempDir('server-engine');
      const server = await startBenchServer(dataDir);
      const account = await server.register(`engine${rep}@example.com`);
      const engine = benchEngine(root, server.url, account.token);
      let run: Awaited<ReturnType<typeof measured<PassSummary>>>;
      try {
        run = await measured(server.process.pid, () => engine.syncOnce({ fullScan: true }));
      } finally {
        await engine.stop();
      }
      const n = entryCount(dataDir, account.id);
      await server.close();
      removeAndFlush(dataDir);
      const summary = run.value;
      if (!summary.inSync || summary.failed.length > 0 || n !== expected) {
        throw new Error(
          `the engine did not upload everything: inSync ${summary.inSync}, ${summary.failed.length} failed ` +
            `(${summary.failed[0]?.message ?? ''}), ${n} entries of ${expected}`,
        );
      }
      times.engine.push(run.ms);
      cpu.engine.push(run.cpuMs);
      serverCpu.engine.push(run.serverCpuMs ?? NaN);
    };
    for (let rep = 0; rep < SIZES.uploadReps; rep++) {
      // Alternate which side goes first.
      if (rep % 2 === 0) {
        await runBare(rep);
        await runEngine(rep);
      } else {
        await runEngine(rep);
        await runBare(rep);
      }
      log(
        `rep ${rep + 1}: bare script ${secs(times.bare.at(-1)!)} (client CPU ${secs(cpu.bare.at(-1)!)}, server CPU ${secs(serverCpu.bare.at(-1)!)}), ` +
          `engine ${secs(times.engine.at(-1)!)} (client CPU ${secs(cpu.engine.at(-1)!)}, server CPU ${secs(serverCpu.engine.at(-1)!)})`,
      );
    }
    const extra = await engineSteps(root, tree);
    const bare = median(times.bare);
    const engine = median(times.engine);
    const pairs = times.engine.map((t, i) => t / times.bare[i]!);
    const r = median(pairs);
    const perFile = (t: number) => `${(t / tree.files.length).toFixed(2)} ms`;
    const rate = (t: number) => `${((tree.files.length / t) * 1000).toFixed(0)} files/s`;
    return {
      id: 'upload',
      target: 'initial upload of small files ≤ 1.1× a bare script',
      size: `${tree.describe}, 1–4 KB each, concurrency ${CONCURRENCY}`,
      measured: ratio(r),
      goal: '≤ 1.10×',
      pass: r <= 1.1,
      details: [
        `ratio = median of ${pairs.length} pairs (${pairs.map(ratio).join(', ')}), sides alternating in order`,
        `engine syncOnce median ${secs(engine)} = ${rate(engine)} (runs: ${times.engine.map(secs).join(', ')})`,
        `bare script median ${secs(bare)} = ${rate(bare)} (runs: ${times.bare.map(secs).join(', ')})`,
        `CPU per file, client: engine ${perFile(median(cpu.engine))}, bare script ${perFile(median(cpu.bare))}; ` +
          `server: ${perFile(median(serverCpu.engine))} under the engine, ${perFile(median(serverCpu.bare))} under the script`,
        `steps the engine takes per file besides the request, timed alone over the same files (4 at a time where async): ${extra}`,
        `${count(expected)} entries created each run; fresh server process and data folder for every run`,
      ],
    };
  } finally {
    await cleanup();
  }
});
