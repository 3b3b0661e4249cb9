import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { statePaths, type StatePaths } from '../../main/state/paths.js';
import type { EventMap, EventName, StatusSnapshot } from '../../main/contract/index.js';
import { DesktopHost, type HostPlatform } from '../../main/app/host/host.js';
import { memoryTokens } from '../../main/app/host/tokens.js';
import { tempDir } from '../helpers/temp.js';

export interface FakePlatform extends HostPlatform {
  copied: string[];
  opened: string[];
  startAtLogin: boolean[];
}

export function fakePlatform(): FakePlatform {
  const platform: FakePlatform = {
    copied: [],
    opened: [],
    startAtLogin: [],
    copyText: (text) => void platform.copied.push(text),
    openPath: (path) => void platform.opened.push(path),
    setStartAtLogin: (enabled) => void platform.startAtLogin.push(enabled),
  };
  return platform;
}

export interface TestHost {
  host: DesktopHost;
  platform: FakePlatform;
  /** The desktop the host was given: the fake one, or the one passed to newHost. */
  desktop: HostPlatform;
  paths: StatePaths;
  folder: string;
  home: string;
  trashed: string[];
}

/** A host with its state in a temp dir, tokens in memory, and a fake desktop (or the one given). */
export function newHost(name = 'host', desktop?: HostPlatform): TestHost {
  const home = tempDir(`${name}`);
  const paths = statePaths({ DRIVESYNC_HOME: join(home, 'state') });
  const folder = join(home, 'Drive');
  mkdirSync(folder, { recursive: true });
  const platform = fakePlatform();
  const trashed: string[] = [];
  const host = new DesktopHost({
    paths,
    platform: desktop ?? platform,
    defaultFolder: folder,
    tokens: memoryTokens(),
    hostname: name,
    trash: async (path, options) => {
      trashed.push(options.originalPath);
      const { moveToOsTrash } = await import('../../main/sync/execute/trash.js');
      await moveToOsTrash(path, options);
    },
    retry: { limit: 1, baseDelayMs: 10 },
    env: {},
    progressIntervalMs: 20,
    // The file manager's socket of each host in a folder of its own (several hosts share a test process and its id).
    socketDir: join(home, 'runtime'),
  });
  return { host, platform, desktop: desktop ?? platform, paths, folder, home, trashed };
}

/** Resolves with the first payload of `event` that `accept` takes, or fails after `ms`. */
export function nextEvent<E extends EventName>(host: { on(event: NoInfer<E>, listener: never): unknown; off(event: NoInfer<E>, listener: never): unknown }, event: E, accept: (payload: EventMap[E]) => boolean = () => true, ms = 40_000): Promise<EventMap[E]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      host.off(event, listener as never);
      reject(new Error(`no ${event} event within ${ms} ms`));
    }, ms);
    const listener = (payload: EventMap[E]) => {
      if (!accept(payload)) return;
      clearTimeout(timer);
      host.off(event, listener as never);
      resolve(payload);
    };
    host.on(event, listener as never);
  });
}

/** Waits until the host's status satisfies `accept` (checking now, then on every state event). */
export async function untilStatus(host: DesktopHost, accept: (s: StatusSnapshot) => boolean, ms = 40_000): Promise<StatusSnapshot> {
  const now = host.status();
  if (accept(now)) return now;
  try {
    return await nextEvent(host, 'state', accept, ms);
  } catch {
    const last = host.status();
    throw new Error(`the status never got there; it is ${last.state} (${last.detail ?? ''}) ${JSON.stringify(last.folders.map((f) => [f.state, f.inSync, f.synced]))}`);
  }
}

export const inSync = (s: StatusSnapshot) => s.state === 'idle' && s.folders.length > 0 && s.folders.every((f) => f.inSync === true);

export function write(root: string, path: string, content: string): void {
  const file = join(root, ...path.split('/'));
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, content);
}
