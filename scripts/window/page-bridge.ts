/**
 * Runs inside the page, before the app (bundled to an IIFE by serve.ts): `window.drivesync` made by the preload's own
 * createDrivesyncApi, over an ipcRenderer stand-in. Its calls and events travel one of two ways:
 *
 * - the renderer tests: `__drivesyncInvoke` is a function the test exposed (playwright's exposeFunction), and the
 *   test sends events with `__drivesyncEmit`;
 * - `npm run window` (`__drivesyncTransport === 'http'`, set by the server before this script): calls are POSTed to
 *   the page's own server, and events come from it as server-sent events.
 *
 * Either way the page gets exactly the API the preload exposes in the app.
 */
import { API_NAME } from '../../main/contract/index.js';
import { createDrivesyncApi, type IpcRendererLike } from '../../preload/api.js';
import { EVENTS_PATH, INVOKE_PATH } from './paths.js';

type Listener = (event: unknown, ...args: unknown[]) => void;
const page = globalThis as unknown as {
  __drivesyncTransport?: 'http';
  __drivesyncInvoke?: (channel: string, arg: unknown) => Promise<unknown>;
  __drivesyncEmit?: (channel: string, payload: unknown) => void;
  __drivesyncListenerCount?: (channel: string) => number;
  __cspViolations: string[];
  addEventListener(type: string, listener: (event: { violatedDirective: string; blockedURI: string }) => void): void;
  fetch(url: string, init: { method: string; headers: Record<string, string>; body: string }): Promise<{ ok: boolean; status: number; json(): Promise<unknown> }>;
  EventSource: new (url: string) => { onmessage: ((event: { data: string }) => void) | null };
};

/** A call over http: the answer is the call's Result, as the main process answers it over IPC. */
async function overHttp(channel: string, arg: unknown): Promise<unknown> {
  try {
    const response = await page.fetch(`${INVOKE_PATH}/${encodeURIComponent(channel)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ arg: arg === undefined ? null : arg }),
    });
    if (!response.ok) return { ok: false, error: { kind: 'failed', message: `The window's server answered ${response.status}.` } };
    return await response.json();
  } catch {
    return { ok: false, error: { kind: 'failed', message: 'The window’s server does not answer: is npm run window still running?' } };
  }
}

const listeners = new Map<string, Set<Listener>>();
const ipc: IpcRendererLike = {
  invoke: (channel, arg) => {
    const value = arg === undefined ? null : arg;
    return page.__drivesyncTransport === 'http' ? overHttp(channel, value) : page.__drivesyncInvoke!(channel, value);
  },
  on: (channel, listener) => {
    if (!listeners.has(channel)) listeners.set(channel, new Set());
    listeners.get(channel)!.add(listener);
  },
  removeListener: (channel, listener) => {
    listeners.get(channel)?.delete(listener);
  },
};
page.__drivesyncEmit = (channel, payload) => {
  for (const listener of [...(listeners.get(channel) ?? [])]) listener({}, payload);
};
page.__drivesyncListenerCount = (channel) => listeners.get(channel)?.size ?? 0;
page.__cspViolations = [];
page.addEventListener('securitypolicyviolation', (event) => page.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`));
if (page.__drivesyncTransport === 'http') {
  // EventSource reconnects on its own when the connection drops.
  new page.EventSource(EVENTS_PATH).onmessage = (event) => {
    const { channel, payload } = JSON.parse(event.data) as { channel: string; payload: unknown };
    page.__drivesyncEmit?.(channel, payload);
  };
}
Object.defineProperty(globalThis, API_NAME, { value: createDrivesyncApi(ipc), writable: false, configurable: false });
