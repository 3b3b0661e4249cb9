/**
 * Live mode as a property: random sequences of what people do to files and folders, made on a real folder while the
 * real engine watches it (with random pauses of 0–500 ms between them), against the real server. When the engine
 * is quiet again:
 * - the drive holds exactly what the folder holds;
 * - an item that was only renamed or moved (never edited) still has the entry it had;
 * - nothing was uploaded beyond the files created and the edits made;
 * - no pass failed.
 * Folders synced from the start are excluded and included again among the changes (selective sync): an excluded
 * folder is on the drive only, with everything done inside it before it was excluded; included, it is back.
 * `DRIVESYNC_LIVE_RUNS` sets the number of runs (30 in `npm test`, 1,000 in `npm run soak`).
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWithin, parentOf } from '../../main/sync/model/names.js';
import { watchTree } from '../../main/sync/local/watcher.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { localTree, newAccount, settleEngine, sorted, type Account } from '../helpers/sync.js';

const RUNS = Number(process.env.DRIVESYNC_LIVE_RUNS ?? 30);
/** The seed the suite runs with, or the one asked for (`random`: fast-check's own). */
const liveSeed = (): { seed?: number; path?: string } => {
  const asked = process.env.DRIVESYNC_LIVE_SEED ?? '20261126';
  if (asked === 'random') return {};
  return { seed: Number(asked), ...(process.env.DRIVESYNC_LIVE_PATH ? { path: process.env.DRIVESYNC_LIVE_PATH } : {}) };
};

type Command =
  | { kind: 'create'; folder: number; name: number }
  | { kind: 'edit'; file: number }
  | { kind: 'atomic-save'; file: number }
  | { kind: 'delete'; file: number }
  | { kind: 'rename'; file: number; name: number }
  | { kind: 'move'; file: number; folder: number }
  | { kind: 'swap'; file: number; other: number }
  | { kind: 'mkdir'; folder: number; name: number }
  | { kind: 'rename-folder'; folder: number; name: number }
  | { kind: 'move-folder'; folder: number; into: number }
  | { kind: 'rmdir'; folder: number }
  | { kind: 'exclude'; folder: number }
  | { kind: 'include'; folder: number };

const pick = fc.nat(50);
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), folder: pick, name: fc.nat(20) }),
  fc.record({ kind: fc.constant('edit' as const), file: pick }),
  fc.record({ kind: fc.constant('atomic-save' as const), file: pick }),
  fc.record({ kind: fc.constant('delete' as const), file: pick }),
  fc.record({ kind: fc.constant('rename' as const), file: pick, name: fc.nat(20) }),
  fc.record({ kind: fc.constant('rename' as const), file: pick, name: fc.nat(20) }),
  fc.record({ kind: fc.constant('move' as const), file: pick, folder: pick }),
  fc.record({ kind: fc.constant('swap' as const), file: pick, other: pick }),
  fc.record({ kind: fc.constant('mkdir' as const), folder: pick, name: fc.nat(20) }),
  fc.record({ kind: fc.constant('rename-folder' as const), folder: pick, name: fc.nat(20) }),
  fc.record({ kind: fc.constant('move-folder' as const), folder: pick, into: pick }),
  fc.record({ kind: fc.constant('rmdir' as const), folder: pick }),
  fc.record({ kind: fc.constant('exclude' as const), folder: pick }),
  fc.record({ kind: fc.constant('include' as const), folder: pick }),
);
const steps = fc.array(fc.tuple(command, fc.integer({ min: 0, max: 500 })), { minLength: 2, maxLength: 7 });

/** What the folder holds, by identity: a path, and for files the content and whether it was edited. */
interface Item {
  path: string;
  folder: boolean;
  content: string;
  edited: boolean;
  /** The entry it had after the first sync (items made later have none to keep). */
  entryId?: number;
  /** Inside a folder excluded here: on the drive only. */
  driveOnly?: boolean;
  /** A folder excluded here itself. */
  excluded?: boolean;
  /**
   * Deleted here, in a folder excluded before the deletion reached the drive: the drive may keep it (a deletion inside
   * a folder that does not live here is not sent; nothing is lost either way).
   */
  deletedHere?: boolean;
  maybe?: boolean;
  /** Saved by replacing the file (a new inode): until that save is synced, a move of it is a deletion and a new file. */
  replaced?: boolean;
  /** What the drive may hold at this path (`content` when not given). */
  contents?: string[];
}

const INITIAL: Record<string, string | null> = {
  'a.txt': 'alpha',
  'b.txt': 'bravo, a little longer',
  'docs': null,
  'docs/c.txt': 'charlie',
  'docs/d.txt': 'delta delta',
  'docs/deep': null,
  'docs/deep/e.txt': 'echo',
  'pics': null,
  'pics/f.jpg': 'foxtrot bytes',
};

/** Applies one command to the disk and the model; a command that makes no sense here is skipped. */
function apply(root: string, items: Item[], cmd: Command, serial: number, select: (excluded: number[]) => void): { uploads: number } {
  const abs = (path: string) => join(root, ...path.split('/'));
  const here = items.filter((i) => !i.driveOnly);
  const files = here.filter((i) => !i.folder);
  const folders = [{ path: '', folder: true } as Item, ...here.filter((i) => i.folder)];
  const within = (d: Item) => items.filter((i) => i.path === d.path || isWithin(i.path, d.path));
  const reselect = () => select(items.filter((i) => i.excluded).map((i) => i.entryId!));
  const taken = (path: string) => items.some((i) => i.path === path);
  const file = (n: number) => files[n % Math.max(1, files.length)];
  const folder = (n: number) => folders[n % folders.length]!;
  const join2 = (dir: string, name: string) => (dir === '' ? name : `${dir}/${name}`);
  const moveTree = (from: string, to: string) => {
    for (const i of items) if (i.path === from || isWithin(i.path, from)) i.path = to + i.path.slice(from.length);
  };
  switch (cmd.kind) {
    case 'create': {
      const path = join2(folder(cmd.folder).path, `new${cmd.name}.txt`);
      if (taken(path)) return { uploads: 0 };
      const content = `created ${serial}`;
      writeFileSync(abs(path), content);
      items.push({ path, folder: false, content, edited: true });
      return { uploads: 1 };
    }
    case 'edit':
    case 'atomic-save': {
      const f = file(cmd.file);
      if (!f) return { uploads: 0 };
      f.contents = [...(f.contents ?? [f.content])];
      f.content = `${f.content} +edit ${serial}`;
      f.contents.push(f.content);
      f.edited = true;
      if (cmd.kind === 'edit') writeFileSync(abs(f.path), f.content);
      else {
        f.replaced = true;
        const temp = join2(parentOf(f.path), `.${serial}.tmp`);
        writeFileSync(abs(temp), f.content);
        renameSync(abs(temp), abs(f.path));
      }
      return { uploads: 1 };
    }
    case 'delete': {
      const f = file(cmd.file);
      if (!f) return { uploads: 0 };
      rmSync(abs(f.path));
      f.deletedHere = true;
      f.driveOnly = true;
      return { uploads: 0 };
    }
    case 'rename':
    case 'move': {
      const f = file(cmd.file);
      if (!f) return { uploads: 0 };
      const to = cmd.kind === 'rename' ? join2(parentOf(f.path), `renamed${cmd.name}.txt`) : join2(folder(cmd.folder).path, f.path.split('/').pop()!);
      if (taken(to)) return { uploads: 0 };
      renameSync(abs(f.path), abs(to));
      // Moved before its new inode was synced, it is to the engine a deletion here and a new file, as to a full pass:
      // its entry at the old place is trashed, or kept on the drive if its folder is excluded first (E1).
      if (f.replaced) items.push({ path: f.path, folder: false, content: f.content, contents: f.contents, edited: true, deletedHere: true, driveOnly: true });
      f.path = to;
      return { uploads: 0 };
    }
    case 'swap': {
      const f = file(cmd.file);
      const g = file(cmd.other);
      if (!f || !g || f === g) return { uploads: 0 };
      const temp = join2(parentOf(f.path), `swap-${serial}.dat`);
      renameSync(abs(f.path), abs(temp));
      renameSync(abs(g.path), abs(f.path));
      renameSync(abs(temp), abs(g.path));
      [f.path, g.path] = [g.path, f.path];
      return { uploads: 0 };
    }
    case 'mkdir': {
      const path = join2(folder(cmd.folder).path, `dir${cmd.name}`);
      if (taken(path)) return { uploads: 0 };
      mkdirSync(abs(path));
      items.push({ path, folder: true, content: '', edited: false });
      return { uploads: 0 };
    }
    case 'rename-folder': {
      const d = folder(cmd.folder);
      if (d.path === '') return { uploads: 0 };
      const to = join2(parentOf(d.path), `folder${cmd.name}`);
      if (taken(to)) return { uploads: 0 };
      renameSync(abs(d.path), abs(to));
      moveTree(d.path, to);
      return { uploads: 0 };
    }
    case 'move-folder': {
      const d = folder(cmd.folder);
      const into = folder(cmd.into);
      if (d.path === '' || into.path === d.path || isWithin(into.path, d.path) || parentOf(d.path) === into.path) return { uploads: 0 };
      const to = join2(into.path, d.path.split('/').pop()!);
      if (taken(to)) return { uploads: 0 };
      renameSync(abs(d.path), abs(to));
      moveTree(d.path, to);
      return { uploads: 0 };
    }
    case 'rmdir': {
      const d = folder(cmd.folder);
      if (d.path === '') return { uploads: 0 };
      // A folder holding an excluded one is not deleted here: whether its copy here (moved in, not dropped yet) goes to
      // the drive's trash with it depends on when the engine saw what (scenarios-selective tests that question).
      if (within(d).some((i) => i.driveOnly && !i.deletedHere)) return { uploads: 0 };
      rmSync(abs(d.path), { recursive: true });
      for (const i of within(d)) {
        i.deletedHere = true;
        i.driveOnly = true;
      }
      return { uploads: 0 };
    }
    case 'exclude': {
      const candidates = folders.filter((f) => f.entryId !== undefined);
      const d = candidates[cmd.folder % Math.max(1, candidates.length)];
      if (!d) return { uploads: 0 };
      for (const i of within(d)) {
        i.driveOnly = true;
        if (i.deletedHere) i.maybe = true;
      }
      d.excluded = true;
      reselect();
      return { uploads: 0 };
    }
    case 'include': {
      const excluded = items.filter((i) => i.excluded);
      const d = excluded[cmd.folder % Math.max(1, excluded.length)];
      if (!d) return { uploads: 0 };
      d.excluded = false;
      for (const i of within(d)) if (!i.deletedHere && !items.some((x) => x.excluded && (i.path === x.path || isWithin(i.path, x.path)))) i.driveOnly = false;
      reselect();
      return { uploads: 0 };
    }
  }
}

describe('live mode, as a property', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it(`${RUNS} random sequences of changes made while the engine watches end as a full pass would`, async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (sequence) => {
        const account: Account = await newAccount(server, { mode: 'live' });
        try {
          // What the watcher reported, for the trace of a failing run.
          const reported: string[] = [];
          let selection = { excluded: new Set<number>() };
          const a = account.computer('alpha', {
            selection: () => selection,
            watch: (root, options) =>
              watchTree(root, {
                ...options,
                onChange: (paths) => {
                  reported.push(`watcher: ${paths.join(', ')}`);
                  options.onChange(paths);
                },
              }),
          });
          const failures: string[] = [];
          a.engine.on('pass', (summary) => failures.push(...summary.failed.map((f) => `${f.path}: ${f.message}`)));
          // Deletions are what the guard is for, not what is tested here.
          a.engine.on('confirm-deletions', () => a.engine.confirmDeletions());
          // What the engine did, printed when the run fails.
          const trace: string[] = [];
          a.engine.on('activity', (x) => trace.push(`${x.kind} ${x.path} ${x.rule ?? ''}`));
          a.engine.on('state', (st, d) => trace.push(`state ${st} ${d ?? ''}`, ...reported.splice(0)));
          a.engine.on('item-error', (e) => trace.push(`item error ${e.path}: ${e.message}`));
          a.engine.on('notice', (message) => trace.push(`notice ${message}`));
          a.engine.on('transfer', (t) => {
            if (t.transferred === 0 || t.transferred === t.total) trace.push(`transfer ${t.direction} ${t.path} ${t.transferred}/${t.total}`);
          });
          const items: Item[] = [];
          for (const [path, content] of Object.entries(INITIAL)) {
            if (content === null) mkdirSync(join(a.root, ...path.split('/')));
            else writeFileSync(join(a.root, ...path.split('/')), content);
            items.push({ path, folder: content === null, content: content ?? '', edited: false });
          }
          await a.sync();
          const entries = () => account.entryIds();
          for (const [path, id] of await entries()) {
            const item = items.find((i) => i.path === path);
            if (item) item.entryId = id;
          }
          const uploadsBefore = account.requests.filter((r) => r === 'POST /uploads').length;
          let allowedUploads = 0;
          for (const [serial, [cmd, pause]] of sequence.entries()) {
            allowedUploads += apply(a.root, items, cmd, serial, (excluded) => {
              selection = { excluded: new Set(excluded) };
              trace.push(`selection: ${excluded.join(', ') || 'nothing excluded'}`);
              a.engine.selectionChanged();
            }).uploads;
            if (cmd.kind === 'include') {
              // What is included arrives by download: the next changes are made to it once it is here.
              const coming = items.filter((i) => !i.driveOnly).map((i) => join(a.root, ...i.path.split('/')));
              for (let waited = 0; waited < 30_000 && !coming.every((path) => existsSync(path)); waited += 50) await new Promise((r) => setTimeout(r, 50));
              await settleEngine(a.engine);
            }
            await new Promise((resolve) => setTimeout(resolve, pause));
          }
          await a.sync();
          const check = async () => {
            const onDrive = new Map(items.filter((i) => !i.deletedHere).map((i) => [i.path, i.folder ? '/' : i.content]));
            const expected = new Map(items.filter((i) => !i.driveOnly).map((i) => [i.path, i.folder ? '/' : i.content]));
            expect(sorted(localTree(a.root))).toEqual(sorted(expected));
            const drive = await account.remoteTree();
            // A deletion made just before its folder was excluded may or may not have reached the drive.
            for (const i of items) {
              const found = drive.get(i.path);
              if (i.maybe && found !== undefined && (i.folder ? found === '/' : (i.contents ?? [i.content]).includes(found))) onDrive.set(i.path, found);
            }
            expect(sorted(drive)).toEqual(sorted(onDrive));
            const now = await entries();
            for (const item of items) {
              if (item.entryId !== undefined && !item.edited && !item.deletedHere) expect({ path: item.path, id: now.get(item.path) }).toEqual({ path: item.path, id: item.entryId });
            }
            const uploads = account.requests.filter((r) => r === 'POST /uploads').length - uploadsBefore;
            expect(uploads).toBeLessThanOrEqual(allowedUploads);
            expect(failures).toEqual([]);
            expect(a.trashed).toEqual([]);
            await settleEngine(a.engine);
          };
          try {
            await check();
          } catch (error) {
            console.log(`steps: ${JSON.stringify(sequence)}\n${trace.join('\n')}`);
            throw error;
          }
        } finally {
          await account.close();
        }
      }),
      {
        numRuns: RUNS,
        endOnFailure: true,
        // A fixed seed in the suite; other seeds explore with DRIVESYNC_LIVE_SEED=random or a number.
        ...liveSeed(),
      },
    );
  }, 60_000 + RUNS * 20_000);
});
