/**
 * The API the window gets, built on an ipcRenderer-like object: one `invoke` per call of the contract and `on`
 * for its events. Only channels the contract names are ever sent or listened to; `on` answers a function that
 * really removes the listener from ipcRenderer; the renderer never sees the IPC event object.
 */
import {
  EVENT_NAMES,
  INVOKE_CHANNELS,
  ipcEventChannel,
  ipcInvokeChannel,
  type DrivesyncApi,
  type EventMap,
  type EventName,
  type InvokeChannel,
  type Result,
} from '../main/contract/index.js';

/** The part of Electron's ipcRenderer the API uses. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

const invokeChannels = new Set<string>(INVOKE_CHANNELS);
const eventNames = new Set<string>(EVENT_NAMES);

export function createDrivesyncApi(ipc: IpcRendererLike): DrivesyncApi {
  const api: DrivesyncApi = {
    invoke(channel: InvokeChannel, ...arg: unknown[]) {
      if (!invokeChannels.has(channel)) {
        return Promise.resolve({ ok: false, error: { kind: 'invalid-argument', message: `unknown call ${String(channel)}` } } satisfies Result<never>);
      }
      return ipc.invoke(ipcInvokeChannel(channel), arg[0]) as Promise<Result<never>>;
    },
    on<E extends EventName>(event: E, listener: (payload: EventMap[E]) => void) {
      if (!eventNames.has(event)) throw new Error(`unknown event ${String(event)}`);
      if (typeof listener !== 'function') throw new Error('the listener must be a function');
      const channel = ipcEventChannel(event);
      const wrapped = (_event: unknown, payload: unknown) => listener(payload as EventMap[E]);
      ipc.on(channel, wrapped);
      let subscribed = true;
      return () => {
        if (!subscribed) return;
        subscribed = false;
        ipc.removeListener(channel, wrapped);
      };
    },
  } as DrivesyncApi;
  return Object.freeze(api);
}
