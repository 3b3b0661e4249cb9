/**
 * The file manager's socket (docs/file-manager.md): one Unix stream socket per process that runs engines, in
 * `$XDG_RUNTIME_DIR/drivesync/`, speaking UTF-8 lines of tab-separated fields with the path last. STATUS is answered
 * from the engines' memory (PathStates); LINK, MENU and RUN may ask the drive. A connection that sends what the
 * protocol does not know gets an ERROR line; one that sends too much, or never reads, is dropped. Nothing a client
 * does reaches past its own connection.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { PathState } from '../sync/model/states.js';
import { isAlive } from './lock.js';

export const PROTOCOL_VERSION = 1;
/** A line longer than this is no line of the protocol: the connection is dropped. */
export const MAX_LINE = 64 * 1024;
/** Output a client has not read past this: it is dropped (it would hold the process's memory). */
const MAX_UNREAD = 1024 * 1024;
/** Paths told CHANGED to one connection are gathered this long, each told once. */
const CHANGED_EVERY_MS = 100;

export interface MenuItem {
  action: string;
  enabled: boolean;
  label: string;
}

/** A synced folder as the socket sees it. */
export interface SocketFolder {
  root: string;
  /** From memory only. */
  stateOf(path: string): PathState;
  /** Paths (relative, '/'-separated) whose state may have changed. */
  onChange(listener: (paths: readonly string[]) => void): () => void;
  /** The shareable link's URL, made when there is none. */
  link(path: string): Promise<string>;
  menu(path: string): Promise<MenuItem[]>;
  /** Runs one action; what to tell the person (for copy-link, the URL to copy). */
  run(action: string, path: string): Promise<string>;
}

/** The folder sockets live in: `$XDG_RUNTIME_DIR/drivesync`, else one of this user's own under the temp folder. */
export function socketDir(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env.XDG_RUNTIME_DIR;
  return runtime && runtime.startsWith('/') ? join(runtime, 'drivesync') : join(tmpdir(), `drivesync-${userInfo().uid}`);
}

/** The sockets of the processes running now (a client asks each). */
export function listSockets(dir = socketDir()): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => /^\d+\.sock$/.test(n))
    .map((n) => join(dir, n));
}

const oneLine = (text: string) => text.replace(/[\t\r\n]+/g, ' ').trim();

export class FileManagerSocket {
  private readonly connections = new Set<Socket>();

  private constructor(
    readonly path: string,
    private readonly server: Server,
    private readonly folders: () => readonly SocketFolder[],
  ) {}

  /** Serves the socket of this process; a stale socket of a process gone (or of this pid before) is replaced. */
  static async serve(folders: () => readonly SocketFolder[], dir = socketDir()): Promise<FileManagerSocket> {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory() || st.uid !== userInfo().uid) throw new Error(`${dir} is not a folder of this user's own`);
    chmodSync(dir, 0o700);
    for (const other of listSockets(dir)) {
      const pid = Number(other.slice(other.lastIndexOf(sep) + 1).split('.')[0]);
      if (pid === process.pid || !isAlive(pid)) rmSync(other, { force: true });
    }
    const path = join(dir, `${process.pid}.sock`);
    let socket: FileManagerSocket;
    const server = createServer((connection) => socket.accept(connection));
    socket = new FileManagerSocket(path, server, folders);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(path, 0o600);
    return socket;
  }

  async close(): Promise<void> {
    for (const c of this.connections) c.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.path, { force: true });
  }

  private accept(connection: Socket): void {
    this.connections.add(connection);
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let pending: Buffer = Buffer.alloc(0);
    const unwatch: Array<() => void> = [];
    const send = (fields: string[]) => {
      if (connection.destroyed) return;
      if (connection.writableLength > MAX_UNREAD) return void connection.destroy();
      connection.write(`${fields.join('\t')}\n`);
    };
    // Answers go out in the order asked, although LINK, MENU and RUN wait for the drive.
    let queue = Promise.resolve();
    connection.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (let end = pending.indexOf(10); end >= 0; end = pending.indexOf(10)) {
        const bytes = pending.subarray(0, end);
        pending = pending.subarray(end + 1);
        if (bytes.length > MAX_LINE) return this.drop(connection, send, 'the line is too long');
        let line: string;
        try {
          line = decoder.decode(bytes).replace(/\r$/, '');
        } catch {
          send(['ERROR', 'the line is not UTF-8', '']);
          continue;
        }
        const answer = this.answer(line, send, unwatch);
        if (answer) queue = queue.then(() => answer.then((fields) => fields.forEach((f) => send(f))));
      }
      if (pending.length > MAX_LINE) this.drop(connection, send, 'the line is too long');
    });
    connection.on('error', () => connection.destroy());
    connection.on('close', () => {
      this.connections.delete(connection);
      for (const stop of unwatch) stop();
    });
  }

  private drop(connection: Socket, send: (fields: string[]) => void, why: string): void {
    send(['ERROR', why, '']);
    connection.end();
    connection.destroy();
  }

  /** The folder holding an absolute path, and the path inside it ('' for the folder itself). */
  private locate(path: string): { folder: SocketFolder; rel: string } | null {
    let best: { folder: SocketFolder; rel: string } | null = null;
    for (const folder of this.folders()) {
      const rel = relative(folder.root, path);
      if (rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && rel !== '..')) {
        if (!best || folder.root.length > best.folder.root.length) best = { folder, rel: rel.split(sep).join('/') };
      }
    }
    return best;
  }

  /** The answer to one line: at once (STATUS, VERSION, WATCH), or after the drive answered (LINK, MENU, RUN). */
  private answer(line: string, send: (fields: string[]) => void, unwatch: Array<() => void>): Promise<string[][]> | null {
    const fields = line.split('\t');
    const command = fields[0] ?? '';
    const path = fields.at(-1) ?? '';
    const absolute = fields.length >= 2 && path.startsWith('/');
    const sync = (answer: string[][]) => Promise.resolve(answer);
    switch (command) {
      case 'VERSION':
        return sync([['VERSION', 'drivesync', String(PROTOCOL_VERSION)]]);
      case 'STATUS': {
        if (fields.length !== 2 || !absolute) return sync([['ERROR', 'STATUS takes one absolute path', path]]);
        const found = this.locate(path);
        return sync([['STATUS', found ? found.folder.stateOf(found.rel) : 'none', path]]);
      }
      case 'WATCH': {
        if (fields.length !== 2 || !absolute) return sync([['ERROR', 'WATCH takes one absolute folder', path]]);
        unwatch.push(this.watch(path, send));
        return sync([['WATCHING', path]]);
      }
      case 'LINK':
      case 'MENU': {
        if (fields.length !== 2 || !absolute) return sync([['ERROR', `${command} takes one absolute path`, path]]);
        const found = this.locate(path);
        if (!found || found.rel === '') return sync([['ERROR', found ? 'the synced folder itself has no link' : 'not inside a folder drivesync syncs', path]]);
        if (command === 'LINK') return this.asked(() => found.folder.link(found.rel).then((url) => [['LINK', url, path]]), path);
        return this.asked(() => found.folder.menu(found.rel).then((items) => [...items.map((i) => ['ITEM', i.action, i.enabled ? '1' : '0', i.label]), ['END', path]]), path);
      }
      case 'RUN': {
        if (fields.length !== 3 || !absolute) return sync([['ERROR', 'RUN takes an action and one absolute path', path]]);
        const found = this.locate(path);
        if (!found || found.rel === '') return sync([['ERROR', 'not inside a folder drivesync syncs', path]]);
        return this.asked(() => found.folder.run(fields[1]!, found.rel).then((said) => [['OK', oneLine(said), path]]), path);
      }
      default:
        return sync([['ERROR', command === '' ? 'an empty line' : `no command ${oneLine(command).slice(0, 40)}`, path.startsWith('/') ? path : '']]);
    }
  }

  /** An answer that needs the drive; its failure is one line of plain words. */
  private asked(ask: () => Promise<string[][]>, path: string): Promise<string[][]> {
    return ask().catch((error: unknown) => [['ERROR', oneLine(error instanceof Error ? error.message : String(error)) || 'it failed', path]]);
  }

  /** CHANGED lines for what changes under `folder`, gathered a moment and each told once. */
  private watch(folder: string, send: (fields: string[]) => void): () => void {
    const stops: Array<() => void> = [];
    let due = new Set<string>();
    let timer: NodeJS.Timeout | null = null;
    const flush = () => {
      timer = null;
      const paths = due;
      due = new Set();
      for (const p of paths) send(['CHANGED', p]);
    };
    for (const synced of this.folders()) {
      const rel = relative(folder, synced.root);
      const inside = relative(synced.root, folder);
      // The folder watched is inside the synced folder, or holds it.
      if (rel.startsWith('..') && inside.startsWith('..')) continue;
      stops.push(
        synced.onChange((paths) => {
          for (const p of paths) {
            const abs = p === '' ? synced.root : join(synced.root, ...p.split('/'));
            if (abs === folder || abs.startsWith(folder.endsWith(sep) ? folder : folder + sep) || folder.startsWith(abs + sep)) due.add(abs);
          }
          if (due.size > 0 && timer === null) timer = setTimeout(flush, CHANGED_EVERY_MS);
        }),
      );
    }
    return () => {
      for (const stop of stops) stop();
      if (timer) clearTimeout(timer);
    };
  }
}
