/**
 * The file manager's socket under a file manager's load (docs/file-manager.md): `STATUS` for random files of a
 * BENCH_FILES-file synced folder (100,000 by default), from 8 connections each keeping 4 questions in flight, until
 * BENCH_FM_REQUESTS answers (1,000,000; 100,000 with BENCH_QUICK). Targets: ≥ 20,000 answers a second, p99 under
 * 5 ms, and no growth of the engine process's memory (after a forced GC) from a warm-up of 100,000 answers to the end.
 *
 * The folder is seeded as the memory benchmark seeds it (seedSyncedFolder): the engine, in a process of its own on
 * plain node with the engine's V8 flags, starts and finds everything in sync, then serves the socket.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ENGINE_V8_FLAGS } from '../../main/sync/engine/process-flags.js';
import { BENCH_DIR, benchmarkMain, cleanup, count, intFromEnv, log, ms, percentile, PROJECT, seedSyncedFolder, tempDir, transpileForNode, type BenchResult } from './common.js';

const CONNECTIONS = 8;
// A file manager asks about the files it shows, a few at a time per connection: 4 in flight each, 32 in all.
const IN_FLIGHT = 4;
const WARM_UP = 100_000;

interface Memory {
  rss: number;
  heapUsed: number;
}

/** Asks `total` STATUS questions over one connection, `IN_FLIGHT` at a time; the latency of each, and wrong answers. */
function askMany(socketPath: string, paths: readonly string[], total: number): Promise<{ latencies: Float64Array; wrong: number }> {
  return new Promise((resolve, reject) => {
    const latencies = new Float64Array(total);
    const sentAt: number[] = [];
    const expected: string[] = [];
    let sent = 0;
    let answered = 0;
    let wrong = 0;
    let buffer = '';
    const socket = connect(socketPath);
    const send = () => {
      const path = paths[Math.floor(Math.random() * paths.length)]!;
      expected.push(`STATUS\tsynced\t${path}`);
      sentAt.push(performance.now());
      sent++;
      socket.write(`STATUS\t${path}\n`);
    };
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      for (let i = 0; i < IN_FLIGHT && sent < total; i++) send();
    });
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        latencies[answered] = performance.now() - sentAt.shift()!;
        if (line !== expected.shift()) wrong++;
        answered++;
        if (sent < total) send();
        if (answered === total) {
          socket.end();
          resolve({ latencies, wrong });
        }
      }
    });
    socket.on('error', reject);
  });
}

async function round(socketPath: string, paths: readonly string[], total: number) {
  const per = Math.ceil(total / CONNECTIONS);
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: CONNECTIONS }, () => askMany(socketPath, paths, per)));
  const seconds = (performance.now() - started) / 1000;
  const all = Float64Array.from(results.flatMap((r) => Array.from(r.latencies)));
  return { answers: per * CONNECTIONS, seconds, latencies: all, wrong: results.reduce((n, r) => n + r.wrong, 0) };
}

benchmarkMain(async (): Promise<BenchResult> => {
  try {
    const requests = intFromEnv('BENCH_FM_REQUESTS', 1_000_000, 100_000);
    const { root, tree, server, account, mirrorPath } = await seedSyncedFolder('socket');
    const [script] = await transpileForNode(tempDir('socket-js'), [join(BENCH_DIR, 'socket-status-engine.ts')]);
    const child = spawn(process.execPath, ['--expose-gc', ...ENGINE_V8_FLAGS, script!], {
      cwd: PROJECT,
      env: { ...process.env, FM_URL: server.url, FM_TOKEN: account.token, FM_ROOT: root, FM_MIRROR: mirrorPath, FM_SOCKET_DIR: tempDir('socket-run') },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: child.stdout! });
    const waiting: Array<(line: string) => void> = [];
    lines.on('line', (line) => {
      if (line.startsWith('SOCKET ') || line.startsWith('MEMORY ')) waiting.shift()?.(line);
      else log(line);
    });
    const next = () => new Promise<string>((resolve) => waiting.push(resolve));
    const socketPath = (await next()).slice('SOCKET '.length);
    const memory = async (): Promise<Memory> => {
      const answer = next();
      child.stdin!.write('MEMORY\n');
      return JSON.parse((await answer).slice('MEMORY '.length)) as Memory;
    };
    const paths = tree.files.map((f) => join(root, ...f.path.split('/')));
    const warm = await round(socketPath, paths, Math.min(WARM_UP, requests));
    const before = await memory();
    const run = await round(socketPath, paths, requests);
    const after = await memory();
    child.stdin!.write('STOP\n');
    await new Promise((resolve) => child.once('exit', resolve));
    const rate = run.answers / run.seconds;
    const p50 = percentile(Array.from(run.latencies), 50);
    const p99 = percentile(Array.from(run.latencies), 99);
    const growth = after.rss - before.rss;
    const heapGrowth = after.heapUsed - before.heapUsed;
    const pass = run.wrong === 0 && warm.wrong === 0 && rate >= 20_000 && p99 < 5 && heapGrowth < 5 && growth < 20;
    return {
      id: 'fm',
      target: `file manager STATUS: ≥ 20,000 answers/s from ${CONNECTIONS} connections, p99 < 5 ms, no memory growth after ${count(requests)} answers`,
      size: `${count(tree.files.length)} synced files, ${count(run.answers)} answers (${CONNECTIONS} × ${IN_FLIGHT} in flight)`,
      measured: `${count(Math.round(rate))} answers/s, p50 ${ms(p50)}, p99 ${ms(p99)}; heap ${heapGrowth >= 0 ? '+' : ''}${heapGrowth.toFixed(1)} MB, RSS ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB`,
      goal: '≥ 20,000/s, p99 < 5 ms, no growth',
      pass,
      details: [
        `after a warm-up of ${count(warm.answers)} answers (GC): RSS ${before.rss} MB, heap used ${before.heapUsed} MB`,
        `after ${count(run.answers)} more (GC): RSS ${after.rss} MB, heap used ${after.heapUsed} MB`,
        `wrong answers: ${run.wrong + warm.wrong}; the run took ${run.seconds.toFixed(1)} s`,
        'the engine and its socket in one process on plain node (the engine V8 flags); the questions from the benchmark process',
      ],
    };
  } finally {
    await cleanup();
  }
});
