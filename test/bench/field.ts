/**
 * docs/design.md §7, measured as a user runs drivesync: `drivesync sync DIR` (the real command, its own
 * process, the flags of bin/drivesync.js) makes the initial sync of a fresh folder of BENCH_FIELD_FILES files to an
 * empty drive, then idles while the bench watches it from outside:
 *   - peak RSS of the initial sync (the kernel's high-water mark, VmHWM), and its time;
 *   - idle for BENCH_IDLE_S seconds (120): RSS at the end, CPU (utime + stime), requests and bytes both ways,
 *     counted by a TCP proxy between the client and the reference server, request by request;
 *   - the cost of the full listing the client still makes now and then (its bytes, measured at the start, and its
 *     spacing) spread over time;
 *   - remote-change latency, for every kind of change another client makes (a new file, an edit, a rename, a move,
 *     a trash, a restore; a new folder with a file, a folder renamed, moved, trashed): BENCH_LATENCY_CHANGES of each
 *     at random moments, the time until the change is on disk, p50 and max per kind;
 *   - the listings of the folders' level the client makes now and then (folders renamed or moved show only there):
 *     their bytes, measured, spread over their spacing;
 *   - a file made here, then saved again: the time until the drive lists it (a pass for one change in a big tree);
 *   - a restart after an unclean stop (SIGKILL): a no-change `sync --once` (time and peak RSS, beside `find` over the
 *     folder and the full listing), then `sync DIR` until it watches with its first pass done.
 * For each server profile in BENCH_FIELD_PROFILES (documents: the documents' listing; deployed: root-only listing,
 * 50 entries a page, the paginator wrapper).
 */
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { DriveClient } from '../../main/api/client.js';
import { listRemote } from '../../main/sync/remote/listing.js';
import { FOLDERS_SHARE, FULL_LISTING_SHARE, fullListingInterval, listingBudget } from '../../main/sync/remote/changes.js';
import type { RemoteId, RemoteItem } from '../../main/sync/model/types.js';
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
const FILES = intFromEnv('BENCH_FIELD_FILES', 100_000, 5_000);
const IDLE_S = intFromEnv('BENCH_IDLE_S', 120, 20);
const CHANGES = intFromEnv('BENCH_LATENCY_CHANGES', 2, 1);
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
  /** Request lines, kept only while `recording` (an initial sync of a million files sends a million). */
  requests: string[];
  recording: boolean;
}

/** A TCP proxy on 127.0.0.1 in front of `target`, counting bytes each way and the request lines sent. */
async function countingProxy(target: string): Promise<{ url: string; traffic: Traffic; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const traffic: Traffic = { up: 0, down: 0, requests: [], recording: false };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: hostname, port: Number(port) });
    sockets.add(client).add(upstream);
    let carry = '';
    client.on('data', (chunk: Buffer) => {
      traffic.up += chunk.length;
      // Request lines only; upload bodies are binary and large, so only their first bytes are looked at.
      if (traffic.recording) {
        const text = carry + chunk.subarray(0, 4096).toString('latin1');
        for (const m of text.matchAll(/(?:^|\r\n)(GET|POST|PUT|DELETE|PATCH) (\S+) HTTP\/1\.1\r\n/g)) traffic.requests.push(`${m[1]} ${m[2]}`);
        carry = text.slice(-300);
      }
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
  if (request.includes('type=folder')) return 'listing: folders';
  if (request.includes('parentIds')) return 'listing: folder';
  if (/perPage=1(&|$)/.test(request)) return 'listing: total';
  return 'listing: full';
}

const summarise = (requests: readonly string[]) => {
  const byKind = new Map<string, number>();
  for (const r of requests) byKind.set(kindOf(r), (byKind.get(kindOf(r)) ?? 0) + 1);
  return [...byKind].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${count(n)} ${k}`).join(', ');
};

// --- every kind of remote change -----------------------------------------------------------------------------------

const KINDS = ['new file', 'edit', 'rename', 'move', 'trash', 'restore', 'new folder', 'folder rename', 'folder move', 'folder trash'] as const;

/** Local paths of the drive's entries, from a full listing. */
async function idsByPath(remote: ReadonlyMap<RemoteId, RemoteItem>): Promise<Map<string, RemoteId>> {
  const pathOf = (id: RemoteId): string => {
    const item = remote.get(id)!;
    return item.parentId === null ? item.name : `${pathOf(item.parentId)}/${item.name}`;
  };
  return new Map([...remote.keys()].map((id) => [pathOf(id), id]));
}

/**
 * Makes CHANGES changes of each kind on the drive, as another client, each at a random moment of a poll interval,
 * and times each until it is on disk here. Each change uses items of its own (files and leaf folders of the layout
 * no other change touches).
 */
async function timeKinds(
  elsewhere: DriveClient,
  dir: string,
  tree: ReturnType<typeof layout>,
  ids: Map<string, RemoteId>,
  engineLog: string,
): Promise<Map<string, number[]>> {
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const local = (path: string) => join(dir, ...path.split('/'));
  const id = (path: string) => {
    const found = ids.get(path);
    if (found === undefined) throw new Error(`no entry at ${path}`);
    return found;
  };
  const leaves = tree.folders.filter((f) => f.parent !== null);
  const groups = tree.folders.filter((f) => f.parent === null);
  // Files are taken from the first half of the folders; folders renamed and moved from the last ones, one each, and
  // files moved and folders made go into the very last: no change touches what another changed.
  const firstHalf = tree.files.filter((f) => leaves.findIndex((l) => l.index === f.folder) < Math.max(1, Math.floor(leaves.length / 2)));
  let nextFile = 0;
  let nextLeaf = 1;
  const file = () => firstHalf[(nextFile++ * 37 + 11) % firstHalf.length]!;
  const target = leaves[leaves.length - 1]!;
  const leaf = () => leaves[Math.max(0, leaves.length - 1 - nextLeaf++)]!;
  const made: RemoteId[] = [];
  const upload = async (name: string, parentId: RemoteId | null, content: string) => {
    const source = join(dir, '..', `upload-${name}`);
    writeFileSync(source, content);
    return (await elsewhere.transfers.upload(source, { name, parentId })).id;
  };
  const restorable: Array<{ path: string; id: RemoteId }> = [];
  const changes: Record<(typeof KINDS)[number], (k: number) => Promise<() => boolean>> = {
    'new file': async (k) => {
      await upload(`remote-new-${k}.txt`, null, `new ${k}`);
      return () => existsSync(local(`remote-new-${k}.txt`));
    },
    edit: async (k) => {
      const f = file();
      const content = `edited elsewhere ${k}`;
      await upload(f.name, id(tree.folders[f.folder]!.path), content);
      await elsewhere.entries.trash([id(f.path)]);
      return () => existsSync(local(f.path)) && readFileSync(local(f.path), 'utf8') === content;
    },
    rename: async () => {
      const f = file();
      await elsewhere.entries.rename(id(f.path), `renamed-${f.name}`);
      const to = `${tree.folders[f.folder]!.path}/renamed-${f.name}`;
      return () => existsSync(local(to)) && !existsSync(local(f.path));
    },
    move: async () => {
      const f = file();
      await elsewhere.entries.move([id(f.path)], id(target.path));
      return () => existsSync(local(`${target.path}/${f.name}`)) && !existsSync(local(f.path));
    },
    trash: async () => {
      const f = file();
      await elsewhere.entries.trash([id(f.path)]);
      restorable.push({ path: f.path, id: id(f.path) });
      return () => !existsSync(local(f.path));
    },
    restore: async () => {
      const r = restorable.shift();
      if (!r) throw new Error('nothing trashed to restore');
      await elsewhere.entries.restore([r.id]);
      return () => existsSync(local(r.path));
    },
    'new folder': async (k) => {
      const folder = await elsewhere.entries.createFolder(`remote-folder-${k}`, id(target.path));
      await upload('inside.txt', folder.id, `inside ${k}`);
      made.push(folder.id);
      return () => existsSync(local(`${target.path}/remote-folder-${k}/inside.txt`));
    },
    'folder rename': async () => {
      const f = leaf();
      await elsewhere.entries.rename(id(f.path), `${f.name}-renamed`);
      const to = `${f.path}-renamed`;
      return () => existsSync(local(to)) && !existsSync(local(f.path));
    },
    'folder move': async () => {
      const f = leaf();
      // Into another group where there is one, else into the last folder.
      const into = groups.find((g) => g.index !== f.parent) ?? target;
      await elsewhere.entries.move([id(f.path)], id(into.path));
      return () => existsSync(local(`${into.path}/${f.name}`)) && !existsSync(local(f.path));
    },
    // The folder made above (one of a thousand files would stop at the mass-delete guard, as it should).
    'folder trash': async (k) => {
      await elsewhere.entries.trash([made.shift()!]);
      return () => !existsSync(local(`${target.path}/remote-folder-${k}`));
    },
  };
  const out = new Map<string, number[]>();
  for (let k = 0; k < CHANGES; k++) {
    for (const kind of KINDS) {
      await sleep(random() * POLL_S * 1000);
      const at = performance.now();
      const madeAt = Date.now();
      const arrived = await changes[kind](k);
      while (!arrived()) {
        if (performance.now() - at > 600_000) throw new Error(`${kind} ${k} did not arrive in 10 minutes`);
        await sleep(25);
      }
      const list = out.get(kind) ?? [];
      list.push(performance.now() - at);
      out.set(kind, list);
      log(`  ${kind} ${k + 1}: on disk after ${secs(list.at(-1)!)}${whereTheTimeWent(engineLog, madeAt, Date.now())}`);
    }
  }
  return out;
}

/**
 * Where a change's time went, from the engine's log (its states, with their times): until the pass that brought it
 * began (the wait for the poll, and the check), from there until it was syncing (the trees restored, the delta
 * applied), and from there until it was on disk (planning, and the operation).
 */
function whereTheTimeWent(engineLog: string, from: number, to: number): string {
  let states: Array<{ time: number; state: string }>;
  try {
    states = readFileSync(engineLog, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"msg":"state"'))
      .map((line) => JSON.parse(line) as { time: number; state: string })
      .filter((entry) => entry.time >= from && entry.time <= to);
  } catch {
    return '';
  }
  const scanning = states.findLast((entry) => entry.state === 'scanning');
  const syncing = states.find((entry) => entry.state === 'syncing' && scanning !== undefined && entry.time >= scanning.time);
  if (!scanning || !syncing) return '';
  return ` (until its pass began ${secs(scanning.time - from)}, trees ${secs(syncing.time - scanning.time)}, planned and done ${secs(to - syncing.time)})`;
}

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
  folderListing: { bytes: number; spacingMin: number };
  /** Milliseconds until each change was on disk, by kind. */
  latencies: Map<string, number[]>;
  /** Milliseconds until a file made here, then saved again, was on the drive. */
  madeHereMs: number;
  savedHereMs: number;
  restart: Restart;
}

interface Restart {
  findMs: number;
  /** A no-change `sync --once` after the client was killed: its time, exit code and peak RSS. */
  onceMs: number;
  onceCode: number | null;
  oncePeakMb: number;
  /** `sync DIR` started again: until it watches, its first pass done. */
  watchingMs: number;
  watchingPeakMb: number;
}

/** Runs the command until it exits (or, with `until`, until its output matches), sampling its peak RSS. */
async function timedCommand(args: string[], env: NodeJS.ProcessEnv, until?: RegExp): Promise<{ ms: number; code: number | null; peakMb: number }> {
  const started = performance.now();
  const child = spawn(BIN, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let peakMb = 0;
  let matched = false;
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const seen = (c: Buffer) => {
    output = (output + c.toString()).slice(-16_384);
    matched ||= until?.test(output) ?? false;
  };
  child.stdout!.on('data', seen);
  child.stderr!.on('data', seen);
  while (child.exitCode === null && !matched) {
    try {
      // A process on its way out has no memory figures left (NaN): the last sample before holds.
      const { peakMb: now } = processFigures(child.pid!);
      if (Number.isFinite(now)) peakMb = Math.max(peakMb, now);
    } catch {
      // It has just exited.
    }
    await sleep(50);
  }
  const ms = performance.now() - started;
  if (until && !matched) throw new Error(`${args.join(' ')} exited ${child.exitCode}: ${output.trim().split('\n').slice(-3).join(' | ')}`);
  if (child.exitCode === null) child.kill('SIGINT');
  const code = await exited;
  return { ms, code, peakMb };
}

/** Until the drive's newest files include one of this name and size. */
async function untilOnDrive(elsewhere: DriveClient, name: string, size: number, from: number): Promise<number> {
  for (;;) {
    const { entries } = await elsewhere.entries.page({ recentOnly: true, perPage: 5 }, 1);
    if (entries.some((e) => e.name === name && e.file_size === size && !e.deleted_at)) return performance.now() - from;
    if (performance.now() - from > 10 * 60_000) throw new Error(`${name} of ${size} bytes was not on the drive after 10 minutes`);
    await sleep(100);
  }
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
  // What the client last printed (its lines about each item would grow without bound on a big tree).
  let stdout = '';
  let stderr = '';
  let watching = false;
  let inSync = false;
  child.stdout!.on('data', (c: Buffer) => {
    stdout = (stdout + c.toString()).slice(-16_384);
    watching ||= /watching .* for changes/.test(stdout);
    inSync ||= /in sync/.test(stdout);
  });
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const pid = child.pid!;
  try {
    const started = performance.now();
    while (!watching) {
      if (child.exitCode !== null) throw new Error(`sync exited ${child.exitCode}: ${stderr.trim() || stdout.trim()}`);
      await sleep(200);
    }
    const initialMs = performance.now() - started;
    const afterInitial = processFigures(pid);
    if (!inSync) throw new Error(`the initial sync did not end in sync: ${stdout.split('\n').slice(-5).join(' | ')}`);
    log(`${profile}: initial sync in ${secs(initialMs)}, peak RSS ${afterInitial.peakMb.toFixed(1)} MB, now ${afterInitial.rssMb.toFixed(1)} MB`);

    proxy.traffic.recording = true;
    // The full listing's cost: one made now through the same proxy (what the engine's own full listing moves).
    const before = { up: proxy.traffic.up, down: proxy.traffic.down, n: proxy.traffic.requests.length };
    let remote = new Map<RemoteId, RemoteItem>();
    const { ms: listMs } = await timed(async () => {
      remote = await listRemote(new DriveClient({ origin: proxy.url, token }), null, () => true, new AbortController().signal);
    });
    const fullListing = { bytes: proxy.traffic.up + proxy.traffic.down - before.up - before.down, requests: proxy.traffic.requests.length - before.n, ms: listMs };
    proxy.traffic.requests.splice(before.n);
    // The listing of the folders' level, as the engine makes it.
    const beforeFolders = { up: proxy.traffic.up, down: proxy.traffic.down, n: proxy.traffic.requests.length };
    for await (const _ of new DriveClient({ origin: proxy.url, token }).entries.tree({ perPage: 1000, type: 'folder' })) void _;
    const folderListingBytes = proxy.traffic.up + proxy.traffic.down - beforeFolders.up - beforeFolders.down;
    proxy.traffic.requests.splice(beforeFolders.n);

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

    // The full listing's and the folders' listing's spacing, as the engine sets them: each gets its share of what the
    // cheap checks leave of the idle budget. A listing of the folders made in the idle window is counted there once,
    // and taken out of the checks' own cost.
    const entries = tree.files.length + tree.folders.length;
    const folderListings = idleRequests.filter((r) => r.includes('type=folder') && /[?&]page=1(&|$)/.test(r) && !r.includes('parentIds')).length;
    const checkBytes = Math.max(0, idleBytes - folderListings * folderListingBytes);
    const bytesPerCheck = checkBytes / ((minutes * 60) / POLL_S);
    const left = listingBudget(bytesPerCheck, POLL_S * 1000);
    const spacingMin = fullListingInterval({ pollMs: POLL_S * 1000, lastListingMs: listMs, entries, bytesPerMinute: left * FULL_LISTING_SHARE }) / 60_000;
    const folderSpacingMin = Math.max(POLL_S / 60, folderListingBytes / (left * FOLDERS_SHARE));
    const amortisedKibPerMin = fullListing.bytes / 1024 / spacingMin + folderListingBytes / 1024 / folderSpacingMin;
    const idleCheckKibPerMin = checkBytes / 1024 / minutes;

    // Every kind of remote change, each at random moments (a fixed sequence, so runs compare).
    const latencies = await timeKinds(elsewhere, dir, tree, await idsByPath(remote), join(home, 'logs', 'drivesync.log'));
    for (const [kind, times] of latencies) log(`${profile}: ${kind} seen after ${times.map((l) => secs(l)).join(', ')}`);

    // Changes made here: a file made in the first folder (no change above touched it), then saved again.
    const mine = join(dir, ...tree.folders[tree.folders.find((f) => f.parent !== null)!.index]!.path.split('/'), 'made-here.txt');
    let from = performance.now();
    writeFileSync(mine, 'made on this computer\n');
    const madeHereMs = await untilOnDrive(elsewhere, 'made-here.txt', 22, from);
    await sleep(3000);
    from = performance.now();
    appendFileSync(mine, 'and saved again\n');
    const savedHereMs = await untilOnDrive(elsewhere, 'made-here.txt', 38, from);
    log(`${profile}: a file made here on the drive after ${secs(madeHereMs)}, saved again after ${secs(savedHereMs)}`);

    // An unclean stop, then the folder opened again with nothing changed.
    for (let waited = 0; waited < 60_000 && !/in sync/.test(stdout.split('\n').slice(-3).join('\n')); waited += 200) await sleep(200);
    child.kill('SIGKILL');
    await exited;
    const find = await timed(async () => void spawnSync('find', [dir], { stdio: 'ignore' }));
    const once = await timedCommand(['sync', '--once', dir], env);
    const watchingAgain = await timedCommand(['sync', dir], env, /watching .* for changes/);
    const restart: Restart = { findMs: find.ms, onceMs: once.ms, onceCode: once.code, oncePeakMb: once.peakMb, watchingMs: watchingAgain.ms, watchingPeakMb: watchingAgain.peakMb };
    log(`${profile}: after a SIGKILL, sync --once ${secs(once.ms)} (exit ${once.code}, peak RSS ${once.peakMb.toFixed(0)} MB; find ${secs(find.ms)}, a full listing ${secs(listMs)}); sync DIR watching after ${secs(watchingAgain.ms)} (peak RSS ${watchingAgain.peakMb.toFixed(0)} MB)`);

    return {
      profile,
      initialMs,
      peakMb: afterInitial.peakMb,
      idleRssMb: idleEnd.rssMb,
      idleCpuPct,
      idleKibPerMin: idleCheckKibPerMin,
      idleRequestsPerMin: idleRequests.length / minutes,
      idleKinds: summarise(idleRequests),
      fullListing,
      amortisedKibPerMin,
      folderListing: { bytes: folderListingBytes, spacingMin: folderSpacingMin },
      latencies,
      madeHereMs,
      savedHereMs,
      restart,
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
      p50: Math.max(...runs.flatMap((r) => [...r.latencies.values()].map((l) => percentile(l, 50)))),
      max: Math.max(...runs.flatMap((r) => [...r.latencies.values()].flat())),
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
      size: `${count(FILES)} files (${count(layout(FILES).folders.length)} folders), ${IDLE_S} s idle, ${CHANGES} remote change${CHANGES === 1 ? '' : 's'} of each of ${KINDS.length} kinds, profiles ${PROFILES.join(', ')}`,
      measured:
        `peak ${worst.peak.toFixed(0)} MB, idle ${worst.idle.toFixed(0)} MB, CPU ${worst.cpu.toFixed(2)} %, ` +
        `${worst.traffic.toFixed(0)} KiB/min, every kind of change seen p50 ≤ ${secs(worst.p50)}, max ${secs(worst.max)}`,
      goal: `peak ≤ ${LIMITS.peakMb} MB, idle ≤ ${LIMITS.idleMb} MB, CPU ≤ ${LIMITS.idleCpu} %, ≤ ${LIMITS.kibPerMin} KiB/min, p50 ≤ ${LIMITS.latencyP50S} s, all ≤ ${LIMITS.latencyS} s`,
      pass,
      details: runs.flatMap((r) => [
        `${r.profile}: initial sync ${secs(r.initialMs)}, peak RSS ${r.peakMb.toFixed(1)} MB; idle RSS ${r.idleRssMb.toFixed(1)} MB, CPU ${r.idleCpuPct.toFixed(2)} % of a core`,
        `${r.profile}: idle polling ${r.idleKibPerMin.toFixed(1)} KiB/min, ${r.idleRequestsPerMin.toFixed(1)} requests/min (${r.idleKinds})`,
        `${r.profile}: a full listing is ${count(r.fullListing.requests)} requests, ${mb(r.fullListing.bytes)} in ${secs(r.fullListing.ms)}; ` +
          `spread over its spacing ${r.amortisedKibPerMin.toFixed(1)} KiB/min; total ${(r.idleKibPerMin + r.amortisedKibPerMin).toFixed(1)} KiB/min`,
        `${r.profile}: the folders' level is ${mb(r.folderListing.bytes)}, listed every ${r.folderListing.spacingMin.toFixed(1)} min`,
        ...[...r.latencies].map(([kind, l]) => `${r.profile}: ${kind} seen p50 ${secs(percentile(l, 50))}, max ${secs(Math.max(...l))} (poll every ${POLL_S} s)`),
        `${r.profile}: a file made here on the drive after ${secs(r.madeHereMs)}, saved again after ${secs(r.savedHereMs)}`,
        `${r.profile}: restart after a SIGKILL: sync --once ${secs(r.restart.onceMs)} (exit ${r.restart.onceCode}), peak RSS ${r.restart.oncePeakMb.toFixed(0)} MB; ` +
          `goal 2 × (find ${secs(r.restart.findMs)} + a full listing ${secs(r.fullListing.ms)}) = ${secs(2 * (r.restart.findMs + r.fullListing.ms))}; ` +
          `sync DIR watching after ${secs(r.restart.watchingMs)} (goal 30 s), peak RSS ${r.restart.watchingPeakMb.toFixed(0)} MB`,
      ]),
    };
  } finally {
    await cleanup();
  }
});
