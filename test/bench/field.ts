/**
 * DESIGN §7 and issue #12, measured as a user runs drivesync: `drivesync sync DIR` (the real command, its own
 * process, the flags of bin/drivesync.js) makes the initial sync of a fresh folder of BENCH_FIELD_FILES files to an
 * empty drive, then idles while the bench watches it from outside:
 *   - peak RSS of the initial sync (the kernel's high-water mark, VmHWM), and its time;
 *   - idle for BENCH_IDLE_S seconds (120): RSS at the end, CPU (utime + stime), requests and bytes both ways,
 *     counted by a TCP proxy between the client and the reference server, request by request;
 *   - the cost of the full listing the client still makes now and then (its bytes, measured at the start, and its
 *     spacing) spread over time;
 *   - remote-change latency: BENCH_LATENCY_CHANGES files uploaded to the drive by another client at random moments;
 *     the time until each is on disk, p50 and p90.
 * For each server profile in BENCH_FIELD_PROFILES (documents: the documents' listing; deployed: root-only listing,
 * 50 entries a page, the paginator wrapper).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { DriveClient } from '../../main/api/client.js';
import { listRemote } from '../../main/sync/remote.js';
import { fullListingInterval, listingBudget } from '../../main/sync/remote-changes.js';
import {
  benchmarkMain,
  cleanup,
  contentOf,
  count,
  intFromEnv,
  layout,
  log,
  mb,
  percentile,
  processCpuMs,
  PROJECT,
  secs,
  sleep,
  startBenchServer,
  tempDir,
  timed,
  writeLayout,
  type BenchResult,
} from './common.js';

const BIN = join(PROJECT, 'bin', 'drivesync.js');
const FILES = intFromEnv('BENCH_FIELD_FILES', 100_000, 2_000);
const IDLE_S = intFromEnv('BENCH_IDLE_S', 120, 20);
const CHANGES = intFromEnv('BENCH_LATENCY_CHANGES', 10, 3);
const PROFILES = (process.env.BENCH_FIELD_PROFILES ?? 'documents,deployed').split(',').map((s) => s.trim());
const POLL_S = 15;

const LIMITS = { peakMb: 250, idleMb: 120, idleCpu: 1, kibPerMin: 256, latencyS: 30, latencyP50S: 15 };

// --- what the bench sees of the client's process -----------------------------------------------------------------

/** RSS now and the peak (the kernel's high-water mark) of another process, and its CPU time so far. */
function processFigures(pid: number): { rssMb: number; peakMb: number; cpuMs: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024, cpuMs: processCpuMs(pid) ?? NaN };
}

/**
 * Where another process's resident memory is, from /proc/PID/smaps: the malloc heap, anonymous mappings (V8's heap,
 * malloc's other arenas, thread stacks), native modules, the node binary, other shared libraries.
 */
function residentBreakdown(pid: number): string {
  const groups = new Map<string, number>();
  let current = 'anonymous';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) {
      const name = mapping[1]!.trim();
      current = name === '' ? 'anonymous' : name === '[heap]' ? 'malloc heap' : name.endsWith('.node') ? 'native modules' : /\/node$/.test(name) ? 'node binary' : name.startsWith('[') ? 'anonymous' : 'libraries and files';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) groups.set(current, (groups.get(current) ?? 0) + Number(rss[1]));
  }
  return [...groups].sort((a, b) => b[1] - a[1]).map(([name, kb]) => `${name} ${(kb / 1024).toFixed(1)} MB`).join(', ');
}

// --- a proxy that counts what crosses it --------------------------------------------------------------------------

interface Traffic {
  up: number;
  down: number;
  requests: string[];
}

/** A TCP proxy on 127.0.0.1 in front of `target`, counting bytes each way and the request lines sent. */
async function countingProxy(target: string): Promise<{ url: string; traffic: Traffic; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const traffic: Traffic = { up: 0, down: 0, requests: [] };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: hostname, port: Number(port) });
    sockets.add(client).add(upstream);
    let carry = '';
    client.on('data', (chunk: Buffer) => {
      traffic.up += chunk.length;
      // Request lines only; upload bodies are binary and large, so only their first bytes are looked at.
      const text = carry + chunk.subarray(0, 4096).toString('latin1');
      for (const m of text.matchAll(/(?:^|\r\n)(GET|POST|PUT|DELETE|PATCH) (\S+) HTTP\/1\.1\r\n/g)) traffic.requests.push(`${m[1]} ${m[2]}`);
      carry = text.slice(-300);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      traffic.down += chunk.length;
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    traffic,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** What a listing request is for, from its query. */
function kindOf(request: string): string {
  if (!request.includes('/drive/file-entries') || !request.startsWith('GET')) return request.split('?')[0]!.replace(/\d+/g, 'N');
  if (request.includes('recentOnly')) return 'listing: recent';
  if (request.includes('deletedOnly')) return 'listing: trash';
  if (/perPage=1(&|$)/.test(request)) return 'listing: total';
  return 'listing: full';
}

const summarise = (requests: readonly string[]) => {
  const byKind = new Map<string, number>();
  for (const r of requests) byKind.set(kindOf(r), (byKind.get(kindOf(r)) ?? 0) + 1);
  return [...byKind].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${count(n)} ${k}`).join(', ');
};

// --- one run: a profile, a tree ---------------------------------------------------------------------------------

interface RunFigures {
  profile: string;
  initialMs: number;
  peakMb: number;
  idleRssMb: number;
  idleCpuPct: number;
  idleKibPerMin: number;
  idleRequestsPerMin: number;
  idleKinds: string;
  fullListing: { bytes: number; requests: number; ms: number };
  amortisedKibPerMin: number;
  latencies: number[];
}

async function runProfile(profile: string): Promise<RunFigures> {
  const server = await startBenchServer(tempDir(`field-server-${profile}`), profile);
  const proxy = await countingProxy(server.url);
  const home = tempDir(`field-home-${profile}`);
  const dir = join(tempDir(`field-${profile}`), 'Drive');
  mkdirSync(dir);
  const tree = layout(FILES);
  const { ms: writeMs } = await timed(() => writeLayout(dir, tree, false));
  log(`${profile}: wrote ${tree.describe} in ${secs(writeMs)}`);

  const email = `field-${profile}@example.com`;
  const { token } = await server.register(email);
  // Another computer of the same account, straight to the server (not counted by the proxy).
  const elsewhere = new DriveClient({ origin: server.url, token });
  const env = { ...process.env, DRIVESYNC_HOME: home, DRIVESYNC_TOKEN: token, NO_COLOR: '1' };
  await new Promise<void>((resolve, reject) => {
    const login = spawn(process.execPath, [BIN, 'login', '--server', proxy.url, '--email', email, '--password-stdin'], { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    login.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    login.stdin!.end('bench-password\n');
    login.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`login exited ${code}: ${stderr.trim()}`))));
  });

  // The command as a user's shell starts it: bin/drivesync.js's first line gives node its flags.
  const child = spawn(BIN, ['sync', dir], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const pid = child.pid!;
  try {
    const started = performance.now();
    while (!/watching .* for changes/.test(stdout)) {
      if (child.exitCode !== null) throw new Error(`sync exited ${child.exitCode}: ${stderr.trim() || stdout.trim()}`);
      await sleep(200);
    }
    const initialMs = performance.now() - started;
    const afterInitial = processFigures(pid);
    if (!/in sync/.test(stdout)) throw new Error(`the initial sync did not end in sync: ${stdout.split('\n').slice(-5).join(' | ')}`);
    log(`${profile}: initial sync in ${secs(initialMs)}, peak RSS ${afterInitial.peakMb.toFixed(1)} MB, now ${afterInitial.rssMb.toFixed(1)} MB`);

    // The full listing's cost: one made now through the same proxy (what the engine's own full listing moves).
    const before = { up: proxy.traffic.up, down: proxy.traffic.down, n: proxy.traffic.requests.length };
    const { ms: listMs } = await timed(() =>
      listRemote(new DriveClient({ origin: proxy.url, token }), null, () => true, new AbortController().signal),
    );
    const fullListing = { bytes: proxy.traffic.up + proxy.traffic.down - before.up - before.down, requests: proxy.traffic.requests.length - before.n, ms: listMs };
    proxy.traffic.requests.splice(before.n);

    // Idle: nothing changes anywhere; the client polls.
    const idleStart = { ...processFigures(pid), up: proxy.traffic.up, down: proxy.traffic.down, n: proxy.traffic.requests.length, at: performance.now() };
    await sleep(IDLE_S * 1000);
    const idleEnd = processFigures(pid);
    const minutes = (performance.now() - idleStart.at) / 60_000;
    const idleBytes = proxy.traffic.up + proxy.traffic.down - idleStart.up - idleStart.down;
    const idleRequests = proxy.traffic.requests.slice(idleStart.n);
    const idleCpuPct = ((idleEnd.cpuMs - idleStart.cpuMs) / (minutes * 60_000)) * 100;
    log(`${profile}: idle RSS is ${residentBreakdown(pid)}`);
    log(`${profile}: idle ${minutes.toFixed(1)} min: RSS ${idleEnd.rssMb.toFixed(1)} MB, CPU ${idleCpuPct.toFixed(2)} %, ${(idleBytes / 1024 / minutes).toFixed(1)} KiB/min, ${(idleRequests.length / minutes).toFixed(1)} requests/min (${summarise(idleRequests)})`);

    // The full listing's spacing, as the engine sets it from the listing's time and the drive's size.
    const entries = tree.files.length + tree.folders.length;
    // The engine gives the full listings what its cheap checks leave of the idle budget.
    const bytesPerCheck = idleBytes / ((minutes * 60) / POLL_S);
    const bytesPerMinute = listingBudget(bytesPerCheck, POLL_S * 1000);
    const spacingMin = fullListingInterval({ pollMs: POLL_S * 1000, lastListingMs: listMs, entries, bytesPerMinute }) / 60_000;
    const amortisedKibPerMin = fullListing.bytes / 1024 / spacingMin;

    // Remote changes at random moments (a fixed sequence, so runs compare).
    const latencies: number[] = [];
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let k = 0; k < CHANGES; k++) {
      await sleep(random() * POLL_S * 1000);
      const name = `remote-change-${k}.txt`;
      const source = join(dir, '..', name);
      writeFileSync(source, contentOf(k, 0));
      const at = performance.now();
      await elsewhere.transfers.upload(source, { name, parentId: null });
      while (!existsSync(join(dir, name))) {
        if (performance.now() - at > 120_000) throw new Error(`${name} did not arrive in 120 s`);
        await sleep(25);
      }
      latencies.push(performance.now() - at);
    }
    log(`${profile}: remote changes seen after ${latencies.map((l) => secs(l)).join(', ')}`);

    return {
      profile,
      initialMs,
      peakMb: afterInitial.peakMb,
      idleRssMb: idleEnd.rssMb,
      idleCpuPct,
      idleKibPerMin: idleBytes / 1024 / minutes,
      idleRequestsPerMin: idleRequests.length / minutes,
      idleKinds: summarise(idleRequests),
      fullListing,
      amortisedKibPerMin,
      latencies,
    };
  } finally {
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    await proxy.close();
    await server.close();
  }
}

benchmarkMain(async (): Promise<BenchResult> => {
  try {
    const runs: RunFigures[] = [];
    for (const profile of PROFILES) runs.push(await runProfile(profile));
    const worst = {
      peak: Math.max(...runs.map((r) => r.peakMb)),
      idle: Math.max(...runs.map((r) => r.idleRssMb)),
      cpu: Math.max(...runs.map((r) => r.idleCpuPct)),
      traffic: Math.max(...runs.map((r) => r.idleKibPerMin + r.amortisedKibPerMin)),
      p50: Math.max(...runs.map((r) => percentile(r.latencies, 50))),
      p90: Math.max(...runs.map((r) => percentile(r.latencies, 90))),
      max: Math.max(...runs.flatMap((r) => r.latencies)),
    };
    const pass =
      worst.peak <= LIMITS.peakMb &&
      worst.idle <= LIMITS.idleMb &&
      worst.cpu <= LIMITS.idleCpu &&
      worst.traffic <= LIMITS.kibPerMin &&
      worst.p50 <= LIMITS.latencyP50S * 1000 &&
      worst.max <= LIMITS.latencyS * 1000;
    return {
      id: 'field',
      target: 'sync DIR as users run it: initial sync peak, then idle memory, CPU, traffic and remote-change latency',
      size: `${count(FILES)} files (${count(layout(FILES).folders.length)} folders), ${IDLE_S} s idle, ${CHANGES} remote changes, profiles ${PROFILES.join(', ')}`,
      measured:
        `peak ${worst.peak.toFixed(0)} MB, idle ${worst.idle.toFixed(0)} MB, CPU ${worst.cpu.toFixed(2)} %, ` +
        `${worst.traffic.toFixed(0)} KiB/min, change seen p50 ${secs(worst.p50)} p90 ${secs(worst.p90)}`,
      goal: `peak ≤ ${LIMITS.peakMb} MB, idle ≤ ${LIMITS.idleMb} MB, CPU ≤ ${LIMITS.idleCpu} %, ≤ ${LIMITS.kibPerMin} KiB/min, p50 ≤ ${LIMITS.latencyP50S} s, all ≤ ${LIMITS.latencyS} s`,
      pass,
      details: runs.flatMap((r) => [
        `${r.profile}: initial sync ${secs(r.initialMs)}, peak RSS ${r.peakMb.toFixed(1)} MB; idle RSS ${r.idleRssMb.toFixed(1)} MB, CPU ${r.idleCpuPct.toFixed(2)} % of a core`,
        `${r.profile}: idle polling ${r.idleKibPerMin.toFixed(1)} KiB/min, ${r.idleRequestsPerMin.toFixed(1)} requests/min (${r.idleKinds})`,
        `${r.profile}: a full listing is ${count(r.fullListing.requests)} requests, ${mb(r.fullListing.bytes)} in ${secs(r.fullListing.ms)}; ` +
          `spread over its spacing ${r.amortisedKibPerMin.toFixed(1)} KiB/min; total ${(r.idleKibPerMin + r.amortisedKibPerMin).toFixed(1)} KiB/min`,
        `${r.profile}: remote change seen p50 ${secs(percentile(r.latencies, 50))}, p90 ${secs(percentile(r.latencies, 90))}, max ${secs(Math.max(...r.latencies))} (poll every ${POLL_S} s)`,
      ]),
    };
  } finally {
    await cleanup();
  }
});
