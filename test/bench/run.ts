/**
 * `npm run bench`: measures docs/design.md §7's targets and prints one table. Nothing here fails on a slow figure; a
 * miss is reported as a miss. Each benchmark runs in a process of its own (so one's memory and JIT state do not
 * colour another's), all on 127.0.0.1, under one scratch folder that is removed at the end.
 *
 * Environment:
 *   BENCH_QUICK=1          small sizes for a smoke run (2,000 files, 300 uploads, 64 MB)
 *   BENCH_FILES            files for the rescan, listing and idle-memory benchmarks (default 100,000)
 *   BENCH_UPLOAD_FILES     small files uploaded by the initial-upload benchmark (default 10,000)
 *   BENCH_BIG_MB           size of the big-file transfer in MiB (default 1,024)
 *   BENCH_SAVES            saves timed by the save-to-server benchmark (default 20)
 *   BENCH_REPS             timed repetitions of the rescan and listing benchmarks (default 5; 3 with BENCH_QUICK)
 *   BENCH_UPLOAD_REPS      timed repetitions of the upload benchmark, each side (default 3; 2 with BENCH_QUICK)
 *   BENCH_RENAME_FILES     files in the folder renamed while watching (default 10,000; 1,000 with BENCH_QUICK)
 *   BENCH_FIELD_FILES      files of the field benchmark's initial sync (default 100,000; 5,000 with BENCH_QUICK: a folder for each change)
 *   BENCH_FIELD_PROFILES   server profiles it runs against (default documents,deployed)
 *   BENCH_IDLE_S           seconds it idles after the initial sync (default 120; 20 with BENCH_QUICK)
 *   BENCH_LATENCY_CHANGES  remote changes it times (default 10; 3 with BENCH_QUICK)
 *   BENCH_FILES_VIEW_ENTRIES  entries of the folder the window opens (default 100,000; 2,000 with BENCH_QUICK)
 *   BENCH_FM_REQUESTS      STATUS answers the file manager benchmark times (default 1,000,000; 100,000 with BENCH_QUICK)
 *   BENCH_ONLY             comma-separated ids to run: rescan,poll,upload,save,rename,memory,watch,bigfile,select,field,files,fm
 *   BENCH_TIMEOUT_MIN      per-benchmark time limit in minutes (default 30)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BENCH_DIR, PROJECT, QUICK, SIZES, count, parseResultLine, secs, tsxArgs, type BenchResult } from './common.js';
import { tempDir } from '../helpers/temp.js';

interface Benchmark {
  id: string;
  file: string;
  title: string;
  /** Node flags of the benchmark's process. */
  flags?: string[];
}

const BENCHMARKS: Benchmark[] = [
  { id: 'rescan', file: 'rescan.ts', title: 'no-change local rescan vs find' },
  { id: 'poll', file: 'remote-poll.ts', title: 'no-change remote poll vs the listing requests' },
  { id: 'upload', file: 'upload.ts', title: 'initial upload vs a bare script' },
  { id: 'save', file: 'save-latency.ts', title: 'a saved file on the server' },
  { id: 'rename', file: 'rename.ts', title: 'a folder of 10,000 files renamed while watching' },
  { id: 'memory', file: 'memory.ts', title: 'where idle memory goes (seeded mirror, forced GC)' },
  { id: 'watch', file: 'watch.ts', title: 'the watcher alone: ready time and memory' },
  { id: 'bigfile', file: 'big-file.ts', title: 'big file up and down, memory growth', flags: ['--expose-gc'] },
  { id: 'select', file: 'select.ts', title: 'what selective sync adds to a pass (planning with exclusions)' },
  { id: 'shared', file: 'shared.ts', title: 'what Shared with me adds to an idle minute' },
  { id: 'field', file: 'field.ts', title: 'sync DIR as users run it: initial sync, idle cost, remote-change latency' },
  { id: 'files', file: 'files-view.ts', title: 'the window opens a folder of 100,000 entries' },
  { id: 'fm', file: 'socket-status.ts', title: "the file manager's STATUS on a folder of 100,000 files" },
];

const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim()).filter(Boolean);
if (only) {
  const unknown = only.filter((id) => !BENCHMARKS.some((b) => b.id === id));
  if (unknown.length > 0) {
    process.stderr.write(`BENCH_ONLY names unknown benchmarks: ${unknown.join(', ')} (known: ${BENCHMARKS.map((b) => b.id).join(', ')})\n`);
    process.exit(2);
  }
}
const selected = BENCHMARKS.filter((b) => !only || only.includes(b.id));
const timeoutMs = Number(process.env.BENCH_TIMEOUT_MIN ?? 30) * 60_000;

const scratch = tempDir('bench');
let current: ChildProcess | null = null;
let interrupted = false;

function removeScratch(): void {
  rmSync(scratch, { recursive: true, force: true });
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    interrupted = true;
    if (current?.pid) {
      try {
        process.kill(-current.pid, 'SIGTERM'); // its own process group: the benchmark and its server
      } catch {
        // already gone
      }
    }
  });
}

async function runOne(bench: Benchmark): Promise<{ result: BenchResult | null; error: string | null; ms: number }> {
  const start = performance.now();
  const child = spawn(process.execPath, tsxArgs(join(BENCH_DIR, bench.file), bench.flags ?? []), {
    cwd: PROJECT,
    env: { ...process.env, BENCH_TMP: scratch },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true, // a process group of its own, so a timeout can stop it and whatever it started
  });
  current = child;
  let result: BenchResult | null = null;
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => {
    const parsed = parseResultLine(line);
    if (parsed) result = parsed;
    else process.stdout.write(`${line}\n`);
  });
  const timer = setTimeout(() => {
    process.stdout.write(`  ${bench.id}: over the ${timeoutMs / 60_000} min limit, stopped\n`);
    if (child.pid) process.kill(-child.pid, 'SIGTERM');
  }, timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  await new Promise<void>((resolve) => (lines as unknown as { closed?: boolean }).closed ? resolve() : lines.once('close', () => resolve()));
  clearTimeout(timer);
  current = null;
  const took = performance.now() - start;
  if (result && code === 0) return { result, error: null, ms: took };
  return { result, error: `exited with ${code}`, ms: took };
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => [...r[c]!].length)));
  const line = (r: string[]) => `| ${r.map((cell, c) => cell + ' '.repeat(widths[c]! - [...cell].length)).join(' | ')} |`;
  return [line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`;
process.stdout.write(`drivesync benchmarks${QUICK ? ' (quick)' : ''}: ${machine}; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
process.stdout.write(
  `sizes: ${count(SIZES.files)} files, ${count(SIZES.uploadFiles)} uploads, ${count(SIZES.bigMb)} MiB, ${SIZES.saves} saves\n`,
);

const outcomes: Array<{ bench: Benchmark; result: BenchResult | null; error: string | null; ms: number }> = [];
try {
  for (const bench of selected) {
    if (interrupted) break;
    process.stdout.write(`\n== ${bench.id}: ${bench.title}\n`);
    const outcome = await runOne(bench);
    outcomes.push({ bench, ...outcome });
    if (outcome.result) for (const detail of outcome.result.details) process.stdout.write(`  ${detail}\n`);
    process.stdout.write(`  (${secs(outcome.ms)})\n`);
  }
} finally {
  removeScratch();
}

const rows = [['target (docs/design.md §7)', 'size', 'measured', 'goal', 'result']];
for (const { bench, result, error } of outcomes) {
  if (result && !error) {
    rows.push([result.target, result.size, result.measured, result.goal, result.pass === null ? 'n/a' : result.pass ? 'pass' : 'MISS']);
  } else {
    rows.push([bench.title, '', error ?? 'no result', '', 'ERROR']);
  }
}
process.stdout.write(`\n${table(rows)}\n`);
process.stdout.write(`load after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
process.exit(outcomes.some((o) => o.error) || interrupted ? 1 : 0);
