/**
 * Two computers on one account, as the live properties drive them: random changes a user makes to a folder, the
 * versions each wrote (to tell what may never be lost), `drivesync sync DIR` processes, and the drive as the
 * reference server stores it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { givenNames, LINUX_NAMES } from '../../main/sync/model/names.js';
import type { TestServer } from './server.js';
import { localTree } from './sync.js';
import { holds } from './eventually.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = join(ROOT, 'bin', 'drivesync.js');

/** A small deterministic generator (mulberry32), so a seed replays the same changes. */
export function random(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

/** Names both computers use, so their changes meet. */
export const FILE_NAMES = ['a.txt', 'b.txt', 'notes.md', 'plan.txt'];
export const FOLDER_NAMES = ['docs', 'pics', 'work'];
export const KINDS = ['create', 'create', 'edit', 'edit', 'atomic-save', 'rename', 'move', 'delete', 'mkdir', 'rename-folder', 'move-folder', 'rmdir'] as const;
export type Kind = (typeof KINDS)[number];

export interface Step {
  on: 'A' | 'B';
  kind: Kind;
  pick: number;
  other: number;
  name: number;
  /** Pause before the change, ms. */
  pause: number;
}

/** A seed's changes: `count` of them (5 to 8 by default), each with its pause. */
export function stepsOf(seed: number, count?: number): Step[] {
  const next = random(seed);
  count ??= 5 + Math.floor(next() * 4);
  return Array.from({ length: count }, () => ({
    on: next() < 0.5 ? 'A' : 'B',
    kind: KINDS[Math.floor(next() * KINDS.length)]!,
    pick: Math.floor(next() * 100),
    other: Math.floor(next() * 100),
    name: Math.floor(next() * 100),
    pause: next() < 0.35 ? 0 : Math.floor(next() * 2500),
  }));
}

/** What the computers' users did to versions: who wrote each, and which the writer itself overwrote or deleted. */
export interface Versions {
  writer: Map<string, 'A' | 'B'>;
  dropped: Set<string>;
}

/** Files and folders of a local folder, without the engine's own. */
export function listing(root: string): { files: string[]; folders: string[] } {
  const tree = localTree(root);
  const files = [...tree].filter(([, v]) => v !== '/').map(([p]) => p).sort();
  const folders = [...tree].filter(([, v]) => v === '/').map(([p]) => p).sort();
  return { files, folders };
}

const pick = <T>(list: readonly T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);
export const abs = (root: string, path: string) => join(root, ...path.split('/'));

/** Makes one change on one computer's folder, as its user would; a change that makes no sense there is skipped. */
export function apply(root: string, on: 'A' | 'B', step: Step, versions: Versions, serial: () => string): string {
  const { files, folders } = listing(root);
  const dirs = ['', ...folders];
  const write = (path: string) => {
    const content = `${on}${serial()}`;
    versions.writer.set(content, on);
    return content;
  };
  /** What the user overwrites or deletes: a version of their own is theirs to drop. */
  const drop = (path: string) => {
    for (const [file, content] of localTree(root)) {
      if (content === '/' || !(file === path || file.startsWith(`${path}/`))) continue;
      if (versions.writer.get(content) === on) versions.dropped.add(content);
    }
  };
  const free = (dir: string, name: string) => {
    const path = dir === '' ? name : `${dir}/${name}`;
    return existsSync(abs(root, path)) ? undefined : path;
  };
  try {
    switch (step.kind) {
      case 'create': {
        const path = free(pick(dirs, step.pick)!, pick(FILE_NAMES, step.name)!);
        if (!path) return 'skip';
        writeFileSync(abs(root, path), write(path));
        return `create ${path}`;
      }
      case 'edit': {
        const path = pick(files, step.pick);
        if (!path) return 'skip';
        drop(path);
        writeFileSync(abs(root, path), write(path));
        return `edit ${path}`;
      }
      case 'atomic-save': {
        const path = pick(files, step.pick);
        if (!path) return 'skip';
        drop(path);
        const temp = `${abs(root, path)}.tmp`;
        writeFileSync(temp, write(path));
        renameSync(temp, abs(root, path));
        return `atomic-save ${path}`;
      }
      case 'rename':
      case 'move': {
        const path = pick(files, step.pick);
        if (!path) return 'skip';
        const dir = step.kind === 'rename' ? dirname(path).replace(/^\.$/, '') : pick(dirs, step.other)!;
        const to = free(dir, step.kind === 'rename' ? pick(FILE_NAMES, step.name)! : path.split('/').at(-1)!);
        if (!to) return 'skip';
        renameSync(abs(root, path), abs(root, to));
        return `${step.kind} ${path} → ${to}`;
      }
      case 'delete': {
        const path = pick(files, step.pick);
        if (!path) return 'skip';
        drop(path);
        rmSync(abs(root, path));
        return `delete ${path}`;
      }
      case 'mkdir': {
        const path = free(pick(dirs, step.pick)!, pick(FOLDER_NAMES, step.name)!);
        if (!path) return 'skip';
        mkdirSync(abs(root, path));
        return `mkdir ${path}`;
      }
      case 'rename-folder':
      case 'move-folder': {
        const path = pick(folders, step.pick);
        if (!path) return 'skip';
        const parent = step.kind === 'rename-folder' ? dirname(path).replace(/^\.$/, '') : pick(dirs, step.other)!;
        if (parent === path || parent.startsWith(`${path}/`)) return 'skip';
        const to = free(parent, step.kind === 'rename-folder' ? pick(FOLDER_NAMES, step.name)! : path.split('/').at(-1)!);
        if (!to) return 'skip';
        renameSync(abs(root, path), abs(root, to));
        return `${step.kind} ${path} → ${to}`;
      }
      case 'rmdir': {
        const path = pick(folders, step.pick);
        if (!path) return 'skip';
        drop(path);
        rmSync(abs(root, path), { recursive: true });
        return `rmdir ${path}`;
      }
    }
  } catch (error) {
    // The engine moved something meanwhile (a download landed, a rename followed the drive): a user would retry.
    return `skip (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
}

export interface Running {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

export interface SyncProcessOptions {
  /** Where the computer reaches the server (its own proxy, in the nemesis); the server's own address by default. */
  serverUrl?: string;
  /** Flags for node before the binary (a preload that injects faults). */
  nodeArgs?: readonly string[];
  env?: Record<string, string>;
  pollIntervalSeconds?: number;
  /** More arguments of `sync`. */
  args?: readonly string[];
}

/** `drivesync sync DIR` as its own process, on a state folder of its own, signed in by DRIVESYNC_TOKEN. */
export function startSync(server: TestServer, token: string, home: string, dir: string, options: SyncProcessOptions = {}): Running {
  mkdirSync(home, { recursive: true });
  const config = join(home, 'config.json');
  if (!existsSync(config)) writeFileSync(config, JSON.stringify({ pollIntervalSeconds: options.pollIntervalSeconds ?? 0.5 }));
  const env: NodeJS.ProcessEnv = { ...process.env, DRIVESYNC_HOME: home, DRIVESYNC_TOKEN: token, DRIVESYNC_SERVER: options.serverUrl ?? server.url, ...options.env };
  for (const key of ['DBUS_SESSION_BUS_ADDRESS', 'DISPLAY']) delete env[key];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, 'sync', dir, ...(options.args ?? [])], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return { child, out: () => out, err: () => err, exited };
}


/** The drive's files as path → content, and the contents of its trash (read from the server's own storage). */
export async function drive(server: TestServer, userId: number): Promise<{ tree: Map<string, string>; trash: Set<string> }> {
  const { db, blobDir } = server.context;
  const rows = db.prepare('SELECT id, name, parent_id, type, file_name, deleted_at FROM entries WHERE owner_id = ?').all(userId) as Array<{
    id: number;
    name: string;
    parent_id: number | null;
    type: string;
    file_name: string | null;
    deleted_at: string | null;
  }>;
  const byId = new Map(rows.map((r) => [r.id, r]));
  // Duplicate names in a folder are named as every computer names them (the lowest id keeps the name).
  const active = rows.filter((r) => !r.deleted_at);
  const given = new Map<number, string>();
  for (const parent of new Set(active.map((r) => r.parent_id))) {
    for (const [id, name] of givenNames(active.filter((r) => r.parent_id === parent), LINUX_NAMES)) given.set(id, name);
  }
  const pathOf = (id: number): string => {
    const r = byId.get(id)!;
    const name = given.get(id) ?? r.name;
    return r.parent_id === null ? name : `${pathOf(r.parent_id)}/${name}`;
  };
  const activeChain = (id: number): boolean => {
    for (let r = byId.get(id); r; r = r.parent_id === null ? undefined : byId.get(r.parent_id)) if (r.deleted_at) return false;
    return true;
  };
  const tree = new Map<string, string>();
  const trash = new Set<string>();
  for (const r of rows) {
    const content = r.type === 'folder' ? '/' : readFileSync(join(blobDir, r.file_name!), 'utf8');
    if (activeChain(r.id)) tree.set(pathOf(r.id), content);
    else if (r.type !== 'folder') trash.add(content);
  }
  return { tree, trash };
}


/** Runs every seed, `parallel` at a time; a seed that fails does not stop the others. The failures' messages. */
export async function eachSeed(seeds: readonly number[], parallel: number, run: (seed: number) => Promise<void>): Promise<string[]> {
  const queue = [...seeds];
  const failures: string[] = [];
  await Promise.all(
    Array.from({ length: Math.min(parallel, queue.length) }, async () => {
      for (let seed = queue.shift(); seed !== undefined; seed = queue.shift()) {
        try {
          await run(seed);
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
    }),
  );
  return failures;
}

/** Whether everyone agrees three looks in a row, a second apart, within `ms` (false when not by then). */
export function untilAgreed(same: () => Promise<boolean>, ms: number): Promise<boolean> {
  let agreeing = 0;
  return holds(async () => {
    agreeing = (await same()) ? agreeing + 1 : 0;
    if (agreeing >= 3) return true;
    await sleep(900);
    return false;
  }, { within: ms });
}
