/**
 * IPC in the main process: one handler per call of the contract, each refusing any sender but the app's own page,
 * each answering a Result; and the host's events sent on to the app's windows.
 */
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { EVENT_NAMES, INVOKE_CHANNELS, ipcEventChannel, ipcInvokeChannel, type Result } from '../contract/index.js';
import { dispatch, type ContractHandler } from './host/dispatch.js';
import type { HostEventSource } from './host/events.js';

export const FOREIGN_SENDER: Result<never> = { ok: false, error: { kind: 'forbidden', message: 'this page may not use drivesync' } };

export function registerIpc(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, handler: ContractHandler, isTrusted: (event: IpcMainInvokeEvent) => boolean, onRefused?: (event: IpcMainInvokeEvent, channel: string) => void): () => void {
  for (const channel of INVOKE_CHANNELS) {
    ipcMain.handle(ipcInvokeChannel(channel), async (event, arg: unknown) => {
      if (!isTrusted(event)) {
        onRefused?.(event, channel);
        return FOREIGN_SENDER;
      }
      return dispatch(handler, channel, arg);
    });
  }
  return () => {
    for (const channel of INVOKE_CHANNELS) ipcMain.removeHandler(ipcInvokeChannel(channel));
  };
}


/** Sends every host event to the windows that are open now. */
export function forwardEvents(source: HostEventSource, targets: () => WebContents[]): void {
  for (const name of EVENT_NAMES) {
    source.on(name, (payload: unknown) => {
      for (const contents of targets()) if (!contents.isDestroyed()) contents.send(ipcEventChannel(name), payload);
    });
  }
}
