import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DriveClient } from '../../main/api/client.js';
import { SyncEngine, type EngineOptions } from '../../main/sync/engine.js';
import { moveToOsTrash } from '../../main/sync/trash.js';
import { STATE_DIR } from '../../main/sync/local.js';
import { startTestServer, type TestServer } from './server.js';

export interface Computer {
  root: string;
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
  token: string;
  client: DriveClient;
  /** Every request the client sent, as `METHOD /path`. */
  requests: string[];
  computer(name: string, options?: Partial<EngineOptions>): Computer;
  /** The remote drive as path → content ('/' for folders), read through the API. */
  remoteTree(): Promise<Map<string, string>>;
  close(): Promise<void>;
}

let counter = 0;

/** A server, an account, and as many "computers" (sync roots with their own mirrors) as a scenario needs. */
export async function newAccount(server?: TestServer): Promise<Account> {
  const own = !server;
  const srv = server ?? (await startTestServer());
  const { token } = await srv.register(`user${++counter}-${process.pid}@example.com`);
  const requests: string[] = [];
  const client = new DriveClient({ origin: srv.url, token, retry: { limit: 2, baseDelayMs: 10 } });
  const count = (options: { method: string; url?: URL | string }) => {
    const url = new URL(String(options.url));
    requests.push(`${options.method} ${url.pathname.replace(/^\/api\/v1/, '')}`);
  };
  // Every request the engine sends passes these hooks, so a scenario can count them.
  const http = client.http as unknown as { api: typeof client.http.api; raw: typeof client.http.raw };
  http.api = client.http.api.extend({ hooks: { beforeRequest: [count] } });
  http.raw = client.http.raw.extend({ hooks: { beforeRequest: [count] } });
  const engines: SyncEngine[] = [];
  const scratch: string[] = [];
  const computer = (name: string, options: Partial<EngineOptions> = {}): Computer => {
    const home = mkdtempSync(join(tmpdir(), `drivesync-${name}-`));
    scratch.push(home);
    const root = join(home, 'Drive');
    mkdirSync(root);
    const trashed: string[] = [];
    const make = () => {
      const engine = new SyncEngine({
        root,
        client,
        mirrorPath: join(home, 'state', 'mirror.sqlite'),
        hostname: name,
        trash: async (path) => {
          trashed.push(path);
          await moveToOsTrash(path);
        },
        ...options,
      });
      engines.push(engine);
      return engine;
    };
    const self: Computer = {
      root,
      engine: make(),
      trashed,
      restart: async () => {
        await self.engine.stop();
        self.engine = make();
      },
      sync: (o) => self.engine.syncOnce({ fullScan: true, ...o }),
      file: (path) => readFileSync(join(root, ...path.split('/')), 'utf8'),
    };
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
        const dir = mkdtempSync(join(tmpdir(), 'drivesync-dl-'));
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
  return {
    server: srv,
    token,
    client,
    requests,
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
