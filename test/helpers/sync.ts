import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DriveClient } from '../../main/api/client.js';
import type { HttpOptions as DriveClientOptions } from '../../main/api/http.js';
import { SyncEngine, type EngineOptions } from '../../main/sync/engine/engine.js';
import type { PassSummary } from '../../main/sync/engine/pass/summary.js';
import { moveToOsTrash } from '../../main/sync/execute/trash.js';
import { STATE_DIR } from '../../main/sync/local/state-dir.js';
import { PROFILES, startTestServer, type ProfileName, type TestServer } from './server.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from './temp.js';

/**
 * How a scenario's computers sync: `once`, a full pass each time (`sync --once`); `live`, the engine started and
 * watching — changes made on disk reach it through the watcher, and each `sync()` waits until it is quiet, polls
 * the server (as its timer would), and waits again. A scenario must reach the same outcome in both.
 */
export type SyncMode = 'once' | 'live';
export const MODES: readonly SyncMode[] = ['once', 'live'];

/**
 * Every end-to-end scenario runs in both modes against both of the reference server's profiles: the documents'
 * answers and the deployed versions' (root-children listings, 50-entry pages, camelCase link fields, …).
 */
export const SCENARIO_CASES: ReadonlyArray<readonly [SyncMode, ProfileName]> = MODES.flatMap((mode) => PROFILES.map((profile) => [mode, profile] as const));

/** Live engines in tests: a shorter stability wait and hold than the defaults, the same logic. */
const LIVE_TIMING = { stabilityMs: 120, hold: { settleMs: 600, maxMs: 10_000 }, pollIntervalMs: 3_600_000 } as const;

/** Waits until the engine has nothing left to do: every watcher event reported and acted on, nothing held. */
export async function settleEngine(engine: SyncEngine, timeoutMs = 60_000): Promise<void> {
  // The kernel's events reach the watcher on a later turn of the event loop, and @parcel/watcher batches them (50 ms,
  // longer while changes keep coming).
  await sleep(150);
  const deadline = Date.now() + timeoutMs;
  for (let quiet = 0; quiet < 3; ) {
    if (Date.now() > deadline) throw new Error('the engine did not settle');
    quiet = engine.isQuiet() ? quiet + 1 : 0;
    await sleep(20);
  }
}

export interface Computer {
  root: string;
  mode: SyncMode;
  engine: SyncEngine;
  /** Stops this computer's engine and starts a new one on the same folder and mirror (a restart). */
  restart(): Promise<void>;
  /** Paths this computer moved to the OS trash. */
  trashed: string[];
  sync(options?: { fullScan?: boolean }): ReturnType<SyncEngine['syncOnce']>;
  file(path: string): string;
}

export interface Account {
  server: TestServer;
  email: string;
  token: string;
  client: DriveClient;
  /** Every request the client sent, as `METHOD /path`. */
  requests: string[];
  /** Another client of this account reaching the server at `origin` (a proxy of the test's), its requests counted too. */
  clientAt(origin: string, overrides?: Partial<DriveClientOptions>): DriveClient;
  mode: SyncMode;
  computer(name: string, options?: Partial<EngineOptions>): Computer;
  /** The remote drive as path → content ('/' for folders), read through the API. */
  remoteTree(): Promise<Map<string, string>>;
  /** The remote drive as path → entry id. */
  entryIds(): Promise<Map<string, number>>;
  close(): Promise<void>;
}

let counter = 0;

/** A server, an account, and as many "computers" (sync roots with their own mirrors) as a scenario needs. */
export async function newAccount(server?: TestServer, options: { mode?: SyncMode; profile?: ProfileName } = {}): Promise<Account> {
  const mode = options.mode ?? 'once';
  const own = !server;
  const srv = server ?? (await startTestServer({ profile: options.profile ?? 'documents' }));
  const email = `user${++counter}-${process.pid}@example.com`;
  const { token } = await srv.register(email);
  const requests: string[] = [];
  const count = (options: { method: string; url?: URL | string }) => {
    const url = new URL(String(options.url));
    requests.push(`${options.method} ${url.pathname.replace(/^\/api\/v1/, '')}`);
  };
  const clientAt = (origin: string, overrides: Partial<DriveClientOptions> = {}) => {
    const made = new DriveClient({ origin, token, retry: { limit: 2, baseDelayMs: 10 }, ...overrides });
    // Every request the engine sends passes these hooks, so a scenario can count them.
    const http = made.http as unknown as { api: typeof made.http.api; raw: typeof made.http.raw };
    http.api = made.http.api.extend({ hooks: { beforeRequest: [count] } });
    http.raw = made.http.raw.extend({ hooks: { beforeRequest: [count] } });
    return made;
  };
  const client = clientAt(srv.url);
  const engines: SyncEngine[] = [];
  const computers: Computer[] = [];
  const scratch: string[] = [];
  const computer = (name: string, options: Partial<EngineOptions> = {}): Computer => {
    const home = tempDir(`${name}`);
    scratch.push(home);
    const root = join(home, 'Drive');
    mkdirSync(root);
    const trashed: string[] = [];
    let started = false;
    let passes: PassSummary[] = [];
    const make = () => {
      const engine = new SyncEngine({
        root,
        client,
        mirrorPath: join(home, 'state', 'mirror.sqlite'),
        hostname: name,
        trash: async (path, trashOptions) => {
          trashed.push(trashOptions.originalPath);
          await moveToOsTrash(path, trashOptions);
        },
        ...(mode === 'live' ? LIVE_TIMING : {}),
        ...options,
      });
      engine.on('pass', (summary) => passes.push(summary));
      engines.push(engine);
      started = false;
      return engine;
    };
    /** The passes since the last sync() as one summary: what they did, and how the last one left things. */
    const summarise = (): PassSummary => {
      const last = passes.at(-1) ?? { done: 0, failed: [], skipped: [], ignored: 0, offline: false, waiting: 0, needsConfirmation: false, inSync: false };
      const done = passes.reduce((sum, p) => sum + p.done, 0);
      const needsConfirmation = passes.some((p) => p.needsConfirmation);
      passes = [];
      return { ...last, done, needsConfirmation };
    };
    // With several computers, each is paused between its own syncs (its watcher still collects what changes), so
    // the scenario's order of events holds: a running client would otherwise act on a change the moment it is made.
    let paused = false;
    const liveSync = async (): Promise<PassSummary> => {
      const engine = self.engine;
      if (!started) {
        started = true;
        passes = [];
        await engine.start();
      } else if (paused) {
        paused = false;
        await engine.resume();
      } else {
        await settleEngine(engine);
        await engine.syncNow();
      }
      await settleEngine(engine);
      await sleep(0); // the last pass's event
      const summary = summarise();
      if (computers.length > 1) {
        engine.pause();
        paused = true;
      }
      return summary;
    };
    const self: Computer = {
      root,
      mode,
      engine: make(),
      trashed,
      restart: async () => {
        await self.engine.stop();
        self.engine = make();
        paused = false;
      },
      sync: (o) => (mode === 'live' ? liveSync() : self.engine.syncOnce({ fullScan: true, ...o })),
      file: (path) => readFileSync(join(root, ...path.split('/')), 'utf8'),
    };
    computers.push(self);
    return self;
  };
  const remoteTree = async () => {
    const byId = new Map<number, { name: string; parent: number | null; type: string }>();
    for await (const e of client.entries.tree()) byId.set(e.id, { name: e.name, parent: e.parent_id ?? null, type: e.type });
    const pathOf = (id: number): string => {
      const e = byId.get(id)!;
      return e.parent === null ? e.name : `${pathOf(e.parent)}/${e.name}`;
    };
    const out = new Map<string, string>();
    for (const [id, e] of byId) {
      if (e.type === 'folder') out.set(pathOf(id), '/');
      else {
        const dir = tempDir('dl');
        try {
          const dest = join(dir, 'f');
          await client.transfers.download({ id, url: null }, dest);
          out.set(pathOf(id), readFileSync(dest, 'utf8'));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }
    return out;
  };
  const entryIds = async () => {
    const byId = new Map<number, { name: string; parent: number | null }>();
    for await (const e of client.entries.tree()) byId.set(e.id, { name: e.name, parent: e.parent_id ?? null });
    const pathOf = (id: number): string => {
      const e = byId.get(id)!;
      return e.parent === null ? e.name : `${pathOf(e.parent)}/${e.name}`;
    };
    return new Map([...byId.keys()].map((id) => [pathOf(id), id]));
  };
  return {
    server: srv,
    email,
    entryIds,
    token,
    client,
    clientAt,
    requests,
    mode,
    computer,
    remoteTree,
    close: async () => {
      for (const engine of engines) await engine.stop().catch(() => undefined);
      if (own) await srv.close();
      for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A local folder as path → content ('/' for folders), without the engine's own state folder. */
export function localTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (prefix === '' && name === STATE_DIR) continue;
      const path = prefix === '' ? name : `${prefix}/${name}`;
      const abs = join(dir, name);
      const stats = lstatSync(abs);
      if (stats.isSymbolicLink()) continue;
      if (stats.isDirectory()) {
        out.set(path, '/');
        walk(abs, path);
      } else out.set(path, readFileSync(abs, 'utf8'));
    }
  };
  walk(root, '');
  return out;
}

export const sorted = (tree: Map<string, string>) => Object.fromEntries([...tree].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export const sha = (text: string) => createHash('sha256').update(text).digest('hex');
