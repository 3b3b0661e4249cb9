/**
 * Runs inside the test page (bundled to an IIFE and added as an init script): the preload's own
 * createDrivesyncApi over an ipcRenderer stand-in whose invoke goes to the test's Node side (page.exposeFunction)
 * and whose events come from it (page.evaluate), so the page gets exactly the API the preload exposes.
 */
import { API_NAME } from '../../main/contract/index.js';
import { createDrivesyncApi, type IpcRendererLike } from '../../preload/api.js';

type Listener = (event: unknown, ...args: unknown[]) => void;
const page = globalThis as unknown as {
  __drivesyncInvoke(channel: string, arg: unknown): Promise<unknown>;
  __drivesyncEmit?: (channel: string, payload: unknown) => void;
  __drivesyncListenerCount?: (channel: string) => number;
  __cspViolations: string[];
  addEventListener(type: string, listener: (event: { violatedDirective: string; blockedURI: string }) => void): void;
};
const listeners = new Map<string, Set<Listener>>();
const ipc: IpcRendererLike = {
  invoke: (channel, arg) => page.__drivesyncInvoke(channel, arg === undefined ? null : arg),
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
Object.defineProperty(globalThis, API_NAME, { value: createDrivesyncApi(ipc), writable: false, configurable: false });
