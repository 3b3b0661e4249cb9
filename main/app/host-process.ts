/**
 * The host's process: started by the Electron main process as a utility process (or by `node`/tsx as a forked
 * child, as the tests do), it runs the sync engines and answers the contract over its parent port. See
 * docs/desktop.md for why the engines live here and not in the main process.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { statePaths } from '../state/paths.js';
import { DesktopHost } from './host/host.js';
import { remotePlatform, serveHost, type Port } from './host/rpc.js';

interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
  off(event: 'message', listener: (event: { data: unknown }) => void): void;
}

/** Electron's `process.parentPort` in a utility process; Node's IPC channel in a forked child. */
export function parentPort(proc: NodeJS.Process = process): Port {
  const electronPort = (proc as NodeJS.Process & { parentPort?: ParentPort }).parentPort;
  if (electronPort) {
    return {
      postMessage: (message) => electronPort.postMessage(message),
      onMessage: (listener) => {
        const handler = (event: { data: unknown }) => listener(event.data);
        electronPort.on('message', handler);
        return () => electronPort.off('message', handler);
      },
    };
  }
  if (proc.send) {
    const send = proc.send.bind(proc);
    return {
      postMessage: (message) => void send(message as never),
      onMessage: (listener) => {
        proc.on('message', listener);
        return () => proc.off('message', listener);
      },
    };
  }
  throw new Error('the host process must be started as a utility process or a forked child');
}

export async function runHostProcess(): Promise<void> {
  const port = parentPort();
  const host = new DesktopHost({
    paths: statePaths(),
    platform: remotePlatform(port),
    defaultFolder: process.env.DRIVESYNC_DEFAULT_FOLDER?.trim() || join(homedir(), 'drivesync'),
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void host
      .dispose()
      .catch(() => undefined)
      .finally(() => process.exit(0));
  };
  serveHost(host, port, stop);
  process.on('SIGTERM', stop);
  // A parent that went away without saying so ends the host too.
  process.on('disconnect', stop);
  await host.init();
}

void runHostProcess();
