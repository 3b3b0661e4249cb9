/**
 * The file manager's socket of the desktop app's host (docs/file-manager.md): the folders whose engines run here, as
 * `drivesync sync DIR` serves its own. "Share…" and "Version history…" open the window on the item (the `open`
 * event); the socket is served while the host runs and removed when it stops.
 */
import type { EventEmitter } from 'node:events';
import type { OpenView } from '../../contract/index.js';
import type { SyncedFolder } from '../../state/folder.js';
import { syncedItemAt } from '../../state/mirror-view.js';
import { socketFolderOf } from '../../state/file-manager-folder.js';
import { FileManagerSocket, type SocketFolder } from '../../state/file-manager-socket.js';
import type { HostContext } from './context.js';
import type { HostEvents } from './events.js';
import { toEntry, type Folders } from './folders.js';

export class FileManagerJob {
  private socket: FileManagerSocket | null = null;
  /** One answerer per open engine (a STATUS must not build one). */
  private readonly served = new WeakMap<SyncedFolder, SocketFolder>();

  constructor(
    private readonly context: HostContext,
    private readonly folders: Folders,
    private readonly events: EventEmitter<HostEvents>,
  ) {}

  /** Serves the socket; without it the folders sync all the same (the reason is told once). */
  async start(dir?: string): Promise<void> {
    if (this.socket) return;
    try {
      this.socket = await FileManagerSocket.serve(() => this.open(), dir);
    } catch (error) {
      this.events.emit('notice', { at: new Date(this.context.now()).toISOString(), root: null, message: `the file manager will show no emblems: ${(error as Error).message}` });
    }
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    this.socket = null;
    await socket?.close().catch(() => undefined);
  }

  get path(): string | null {
    return this.socket?.path ?? null;
  }

  private open(): SocketFolder[] {
    const client = this.context.client;
    if (!client) return [];
    const out: SocketFolder[] = [];
    for (const run of this.folders.runs.values()) {
      const folder = run.folder;
      if (!folder) continue;
      let served = this.served.get(folder);
      if (!served) {
        const open = (view: OpenView['view'], path: string) => {
          const item = syncedItemAt(folder.mirror, path);
          if (!item) throw new Error('not on the drive yet: it is synced first');
          this.events.emit('open', { view, entry: toEntry(folder.root, item) });
        };
        served = socketFolderOf(folder, client, {
          share: async (_root, path) => open('share', path),
          versions: async (_root, path) => open('versions', path),
        });
        this.served.set(folder, served);
      }
      out.push(served);
    }
    return out;
  }
}
