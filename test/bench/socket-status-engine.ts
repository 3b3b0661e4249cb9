/**
 * The process measured by the file manager socket benchmark (socket-status.ts starts it, on plain node, with
 * --expose-gc): one SyncEngine on a seeded folder, started, serving the file manager's socket as `sync DIR` does.
 * It prints `SOCKET path`, then answers each `MEMORY` line on stdin with `MEMORY {json}` after a forced GC.
 */
import { createInterface } from 'node:readline';
import { DriveClient } from '../../main/api/client.js';
import { SyncEngine } from '../../main/sync/engine/engine.js';
import { FileManagerSocket } from '../../main/state/file-manager-socket.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const MB = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

const root = env('FM_ROOT');
const engine = new SyncEngine({
  root,
  client: new DriveClient({ origin: env('FM_URL'), token: env('FM_TOKEN') }),
  mirrorPath: env('FM_MIRROR'),
  hostname: 'bench',
  trash: async () => {
    throw new Error('nothing should be trashed');
  },
  pollIntervalMs: 3_600_000,
});
const first = await engine.start();
process.stdout.write(`started: ${first.done} operations, in sync: ${first.inSync}\n`);
const refuse = async (): Promise<never> => {
  throw new Error('not in this benchmark');
};
const socket = await FileManagerSocket.serve(
  () => [{ root, stateOf: (path) => engine.pathState(path), onChange: (listener) => engine.onPathStates(listener), link: refuse, menu: refuse, run: refuse }],
  env('FM_SOCKET_DIR'),
);
process.stdout.write(`SOCKET ${socket.path}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'MEMORY') {
    for (let i = 0; i < 4; i++) {
      gc!();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const m = process.memoryUsage();
    process.stdout.write(`MEMORY ${JSON.stringify({ rss: MB(m.rss), heapUsed: MB(m.heapUsed) })}\n`);
  } else if (line === 'STOP') break;
}
await socket.close();
await engine.stop();
process.exit(0);
