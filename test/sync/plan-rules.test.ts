/**
 * The planner's decision table (docs/sync-rules.md), row by row, then its guards, then the counterexamples the
 * convergence property (plan.property.test.ts) found, kept as named regressions.
 *
 * Scenarios are built with the simulator: `addSynced` makes an item in sync on both sides, `local*` is the user on
 * the disk, `remote*` another client on the drive. Ids and inodes count from 1 in the order items are made.
 */
import { describe, expect, it } from 'vitest';
import { conflictedCopyName, LINUX_NAMES, safeLocalName, type NameRules } from '../../main/sync/model/names.js';
import { plan, planChanges, settled, type PlanOptions } from '../../main/sync/plan/plan.js';
import type { Operation, Plan } from '../../main/sync/model/types.js';
import { Sim, contentsKept, convergenceProblems, describeOp, permutations, syncUntilQuiet } from './sim.js';

const opsOf = (sim: Sim, options?: PlanOptions): Operation[] => plan(sim.snapshot(), options).operations;
/** A Windows volume's name rules (NTFS through Win32: case folded, Win32's names refused). */
const WINDOWS: NameRules = { caseInsensitive: true, normalisesUnicode: false, windowsNames: true };
const kinds = (ops: Operation[]) => ops.map((op) => `${op.kind}[${op.rule}]`).sort();
const localPaths = (sim: Sim) => [...sim.trees.local.keys()].sort();
const remoteNames = (sim: Sim) => [...sim.trees.remote.values()].map((r) => sim.remotePath(r.id)).sort();

/**
 * Runs the scenario twice, applying each pass's operations in the planner's order and reversed, and checks both end
 * in sync with every content of `keep` still somewhere (a tree or a trash). Returns the forward run.
 */
function expectConverges(build: () => Sim, options: PlanOptions = {}, keep?: string[]): { sim: Sim; plans: Plan[] } {
  let first: { sim: Sim; plans: Plan[] } | undefined;
  for (const order of ['forward', 'reverse'] as const) {
    const sim = build();
    const wanted = keep ?? [...new Set([...sim.localContent.values(), ...sim.remoteContent.values()])];
    const plans = syncUntilQuiet(sim, options, order);
    const ignored = options.isIgnored ?? (() => false);
    expect(convergenceProblems(sim, ignored), `${order}:\n${sim.log.join('\n')}\n${sim.dump()}`).toEqual([]);
    const kept = contentsKept(sim);
    expect(wanted.filter((c) => !kept.has(c)), `${order}: content lost`).toEqual([]);
    first ??= { sim, plans };
  }
  return first!;
}

// --- Synced items ---------------------------------------------------------------------------------------------

describe('C1: changed locally, same remotely → replace-remote', () => {
  it('uploads a new entry in the same folder and trashes the old one', () => {
    const sim = new Sim();
    const id = sim.addSynced('a.txt', 'file', 'one');
    sim.localWrite('a.txt', 'two!');
    expect(opsOf(sim)).toEqual([{ kind: 'replace-remote', rule: 'C1', path: 'a.txt', remoteId: id }]);
    syncUntilQuiet(sim);
    expect(sim.trees.remote.has(id)).toBe(false);
    expect([...sim.remoteContent.values()]).toEqual(['two!']);
    expect(sim.trash).toEqual([{ side: 'remote', name: 'a.txt', content: 'one' }]);
  });

  it('an edit of the same size (new mtime, other hash) and an atomic save (new inode) are edits', () => {
    const sim = new Sim();
    const a = sim.addSynced('a.txt', 'file', 'one');
    const b = sim.addSynced('b.txt', 'file', 'one');
    sim.localWrite('a.txt', 'two');
    sim.localWrite('b.txt', 'new content', true);
    expect(opsOf(sim)).toEqual([
      { kind: 'replace-remote', rule: 'C1', path: 'a.txt', remoteId: a },
      { kind: 'replace-remote', rule: 'C1', path: 'b.txt', remoteId: b },
    ]);
  });

  it("an atomic save whose freed inode number a new file elsewhere gets is an edit and a new file, not a move", () => {
    const sim = new Sim();
    const a = sim.addSynced('a.txt', 'file', 'one');
    const c = sim.addSynced('c.txt', 'file', 'three');
    const freed = sim.trees.local.get('a.txt')!.inode;
    sim.localWrite('a.txt', 'one, saved atomically', true);
    sim.localWrite('c.txt', 'three, saved atomically over the freed inode', true, freed);
    expect(opsOf(sim)).toEqual([
      { kind: 'replace-remote', rule: 'C1', path: 'a.txt', remoteId: a },
      { kind: 'replace-remote', rule: 'C1', path: 'c.txt', remoteId: c },
    ]);
    // A rename keeps size and mtime: then it is a move even with something new at the old place (`mv a b; touch a`).
    const sim2 = new Sim();
    const d = sim2.addSynced('d.txt', 'file', 'dee');
    sim2.localMove('d.txt', 'e.txt');
    sim2.localWrite('d.txt', 'new');
    expect(kinds(opsOf(sim2))).toEqual(['rename-remote[M1]', 'upload[N2]']);
    expect(opsOf(sim2).find((op) => op.kind === 'rename-remote')).toMatchObject({ remoteId: d, name: 'e.txt' });
  });

  it("a file moved onto a deleted file's path, its rename recorded while the other's deletion waited: the deletion follows, nothing is replaced", () => {
    const sim = new Sim();
    const c = sim.addSynced('c.txt', 'file', 'charlie');
    const d = sim.addSynced('d.txt', 'file', 'delta');
    sim.localDelete('c.txt');
    sim.localMove('d.txt', 'c.txt');
    const first = opsOf(sim);
    expect(kinds(first)).toEqual(['rename-remote[M1]', 'trash-remote[D2]']);
    // Live mode holds D2 while the folder settles; the rename goes first.
    sim.apply(first.find((op) => op.kind === 'rename-remote')!);
    expect(sim.trees.base.get(d)?.path).toBe('c.txt');
    expect(opsOf(sim)).toEqual([{ kind: 'trash-remote', rule: 'D2', remoteId: c, count: 1 }]);
  });

  it('a local file whose stat changed and whose hash the scan did not compute counts as changed', () => {
    const sim = new Sim();
    const id = sim.addSynced('a.txt', 'file', 'one');
    const item = sim.trees.local.get('a.txt')!;
    sim.trees.local.set('a.txt', { ...item, mtimeMs: item.mtimeMs + 1, hash: undefined });
    expect(opsOf(sim)).toEqual([{ kind: 'replace-remote', rule: 'C1', path: 'a.txt', remoteId: id }]);
  });
});

describe('C2: same locally, changed remotely → download', () => {
  it('a new size', () => {
    const sim = new Sim();
    const id = sim.addSynced('dir', 'folder');
    const file = sim.addSynced('dir/a.txt', 'file', 'one');
    sim.remoteEdit(file, 'longer');
    expect(opsOf(sim)).toEqual([{ kind: 'download', rule: 'C2', remoteId: file, path: 'dir/a.txt' }]);
    expect(id).toBe(1);
    expectConverges(
      () => {
        const s = new Sim();
        s.addSynced('dir', 'folder');
        s.remoteEdit(s.addSynced('dir/a.txt', 'file', 'one'), 'longer');
        return s;
      },
      {},
      ['longer'], // the old version is replaced: the other side changed it, this side did not
    );
  });

  it('the same size with a new updated_at (no move)', () => {
    const sim = new Sim();
    const id = sim.addSynced('a.txt', 'file', 'one');
    sim.remoteEdit(id, 'two');
    expect(opsOf(sim)).toEqual([{ kind: 'download', rule: 'C2', remoteId: id, path: 'a.txt' }]);
  });
});

describe('C3: changed on both sides → conflict', () => {
  it('the remote version takes the name, the local one becomes a conflicted copy, both are synced', () => {
    const sim = new Sim();
    const id = sim.addSynced('notes.md', 'file', 'base');
    sim.localWrite('notes.md', 'local edit');
    sim.remoteEdit(id, 'remote edit!');
    expect(opsOf(sim)).toEqual([{ kind: 'conflict', rule: 'C3', remoteId: id, path: 'notes.md' }]);
    const { sim: done } = expectConverges(() => {
      const s = new Sim();
      const i = s.addSynced('notes.md', 'file', 'base');
      s.localWrite('notes.md', 'local edit');
      s.remoteEdit(i, 'remote edit!');
      return s;
    });
    expect(done.localContent.get('notes.md')).toBe('remote edit!');
    const copies = localPaths(done).filter((p) => p !== 'notes.md');
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatch(/^notes \(conflicted copy \d{4}-\d{2}-\d{2} \d{6} simhost\)\.md$/);
    expect(done.localContent.get(copies[0]!)).toBe('local edit');
    expect(remoteNames(done)).toEqual([copies[0], 'notes.md']);
  });

  it('identical content on both sides is recorded, not a conflict copy', () => {
    const { sim } = expectConverges(() => {
      const s = new Sim();
      const i = s.addSynced('a.txt', 'file', 'base');
      s.localWrite('a.txt', 'same new');
      s.remoteEdit(i, 'same new');
      return s;
    });
    expect(localPaths(sim)).toEqual(['a.txt']);
  });

  it('the copy name format', () => {
    expect(conflictedCopyName('report.final.pdf', new Date(Date.UTC(2024, 0, 2, 3, 4, 5)), 'my host')).toBe(
      'report.final (conflicted copy 2024-01-02 030405 my-host).pdf',
    );
  });

  it('a copy of a long name fits the drive (200 characters) and a local name (255 bytes); a newline in the name stays', () => {
    const when = new Date(Date.UTC(2024, 0, 2, 3, 4, 5));
    const copy = conflictedCopyName(`${'é'.repeat(180)}.txt`, when, 'host');
    expect([...copy].length).toBeLessThanOrEqual(200);
    expect(Buffer.byteLength(copy)).toBeLessThanOrEqual(255);
    expect(copy).toMatch(/^é+ \(conflicted copy 2024-01-02 030405 host\)\.txt$/);
    expect(conflictedCopyName('new\nline.txt', when, 'host')).toBe('new\nline (conflicted copy 2024-01-02 030405 host).txt');
  });
});

describe('C4: touched (same hash), same remotely → record', () => {
  it('only the base is refreshed', () => {
    const sim = new Sim();
    const id = sim.addSynced('a.txt', 'file', 'one');
    sim.localTouch('a.txt');
    expect(opsOf(sim)).toEqual([{ kind: 'record', rule: 'C4', remoteId: id, path: 'a.txt' }]);
    sim.apply(opsOf(sim)[0]!);
    expect(opsOf(sim)).toEqual([]);
    expect(sim.trash).toEqual([]);
  });

  it('an atomic save of the same bytes (new inode) is recorded too', () => {
    const sim = new Sim();
    const id = sim.addSynced('a.txt', 'file', 'one');
    sim.localWrite('a.txt', 'one', true);
    expect(opsOf(sim)).toEqual([{ kind: 'record', rule: 'C4', remoteId: id, path: 'a.txt' }]);
  });

  it('a folder deleted and made again at its path (new inode) is recorded', () => {
    const sim = new Sim();
    const id = sim.addSynced('dir', 'folder');
    sim.localDelete('dir');
    sim.localMkdir('dir');
    expect(opsOf(sim)).toEqual([{ kind: 'record', rule: 'C4', remoteId: id, path: 'dir' }]);
  });
});

/**
 * Two computers save one file at once: each uploads its version as a new entry and trashes the old one, so the drive
 * ends with two entries of one name. This is the later one's computer (B): it made `ours` (madeHere), after `theirs`.
 */
function savedOnTwoComputers(theirs: string, ours: string): { sim: Sim; old: number; twin: number; mine: number } {
  const sim = new Sim({ host: 'B' });
  const old = sim.addSynced('plan.txt', 'file', 'v0');
  sim.localWrite('plan.txt', ours);
  const edit = opsOf(sim);
  // The other computer's save reaches the drive first (it trashed `old` too; B's trash of it changes nothing).
  const twin = sim.remoteCreate(null, 'plan.txt', 'file', theirs);
  for (const op of edit) sim.apply(op);
  const mine = [...sim.trees.base.values()].find((b) => b.path === 'plan.txt')!.remoteId;
  return { sim, old, twin, mine };
}

describe('C5: a later entry of one name this computer made (two computers saved one file at once) → resolve-twin', () => {
  it('other bytes: this computer renames its entry to the conflicted-copy name, on the drive and here; the older keeps the name', () => {
    const { sim, twin, mine } = savedOnTwoComputers('from A', 'from B');
    expect(sim.trees.base.get(mine)?.madeHere).toBe(true);
    expect(opsOf(sim)).toEqual([{ kind: 'resolve-twin', rule: 'C5', remoteId: mine, twinId: twin, path: 'plan.txt' }]);
    const { sim: done } = expectConverges(() => savedOnTwoComputers('from A', 'from B').sim);
    const copy = conflictedCopyName('plan.txt', new Date(Date.parse(sim.trees.remote.get(mine)!.updatedAt)), 'B');
    expect(remoteNames(done)).toEqual([copy, 'plan.txt'].sort());
    expect(done.localContent.get('plan.txt')).toBe('from A');
    expect(done.localContent.get(copy)).toBe('from B');
  });

  it('the same bytes: this computer\'s entry goes to the drive\'s trash and the file is the older entry; nothing renamed', () => {
    const { sim: done } = expectConverges(() => savedOnTwoComputers('same', 'same').sim);
    expect(remoteNames(done)).toEqual(['plan.txt']);
    expect(localPaths(done)).toEqual(['plan.txt']);
    expect(done.trash.filter((t) => t.side === 'remote').map((t) => t.content)).toEqual(['v0', 'same']);
  });

  it('the computer that made the older entry (or any other) renames nothing: the later one is numbered here until its maker resolves it', () => {
    const sim = new Sim({ host: 'A' });
    const old = sim.addSynced('plan.txt', 'file', 'v0');
    sim.localWrite('plan.txt', 'from A');
    for (const op of opsOf(sim)) sim.apply(op);
    const b = sim.remoteCreate(null, 'plan.txt', 'file', 'from B');
    expect(sim.trees.remote.has(old)).toBe(false);
    expect(opsOf(sim)).toEqual([{ kind: 'download', rule: 'N1', remoteId: b, path: 'plan (2).txt' }]);
  });

  it('an entry this computer made that another client renamed to an older file\'s name is a duplicate, numbered here; the drive keeps both names', () => {
    const build = () => {
      const sim = new Sim({ host: 'A' });
      const older = sim.addSynced('plan.txt', 'file', 'older');
      sim.localWrite('other.txt', 'made here');
      for (const op of opsOf(sim)) sim.apply(op);
      const mine = [...sim.trees.base.values()].find((b) => b.path === 'other.txt')!.remoteId;
      expect(sim.trees.base.get(mine)?.madeHere).toBe(true);
      sim.remoteMove(mine, null, 'plan.txt');
      return { sim, older, mine };
    };
    const { sim, mine } = build();
    expect(opsOf(sim)).toEqual([{ kind: 'move-local', rule: 'M2', remoteId: mine, from: 'other.txt', to: 'plan (2).txt' }]);
    const { sim: done } = expectConverges(() => build().sim);
    expect(remoteNames(done)).toEqual(['plan.txt', 'plan.txt']);
    expect(done.localContent.get('plan.txt')).toBe('older');
    expect(done.localContent.get('plan (2).txt')).toBe('made here');
  });

  it('waits while its twin, synced here, changes this pass (the two are compared as they stay)', () => {
    const sim = new Sim();
    const twin = sim.addSynced('plan (2).txt', 'file', 'older', 'plan.txt');
    sim.localWrite('plan.txt', 'made here');
    for (const op of opsOf(sim)) sim.apply(op);
    const mine = [...sim.trees.base.values()].find((b) => b.path === 'plan.txt')!.remoteId;
    expect(opsOf(sim)).toEqual([{ kind: 'resolve-twin', rule: 'C5', remoteId: mine, twinId: twin, path: 'plan.txt' }]);
    sim.localWrite('plan (2).txt', 'older, edited');
    expect(kinds(opsOf(sim))).toEqual(['replace-remote[C1]']);
  });
});

describe('M1: moved locally, not remotely → rename-remote / move-remote', () => {
  it('a rename in the same folder is rename-remote', () => {
    const sim = new Sim();
    const id = sim.addSynced('a.txt', 'file', 'x');
    sim.localMove('a.txt', 'b.txt');
    expect(opsOf(sim)).toEqual([{ kind: 'rename-remote', rule: 'M1', remoteId: id, name: 'b.txt', path: 'b.txt' }]);
  });

  it('a move to another folder, with a new name, is one move-remote', () => {
    const sim = new Sim();
    const dir = sim.addSynced('dir', 'folder');
    const id = sim.addSynced('a.txt', 'file', 'x');
    sim.localMove('a.txt', 'dir/b.txt');
    expect(opsOf(sim)).toEqual([{ kind: 'move-remote', rule: 'M1', remoteId: id, parentId: dir, name: 'b.txt', path: 'dir/b.txt' }]);
  });

  it('a folder move is one operation; its content follows without operations of its own', () => {
    const { sim, plans } = expectConverges(() => {
      const s = new Sim();
      s.addSynced('src', 'folder');
      s.addSynced('src/a.txt', 'file', 'a');
      s.addSynced('src/b.txt', 'file', 'b');
      s.localMove('src', 'lib');
      return s;
    });
    expect(kinds(plans[0]!.operations)).toEqual(['rename-remote[M1]']);
    expect(remoteNames(sim)).toEqual(['lib', 'lib/a.txt', 'lib/b.txt']);
  });

  it('waits while the new parent has no remote entry (it is created first)', () => {
    const sim = new Sim();
    const id = sim.addSynced('a.txt', 'file', 'x');
    sim.localMkdir('new');
    sim.localMove('a.txt', 'new/a.txt');
    expect(opsOf(sim)).toEqual([{ kind: 'create-remote-folder', rule: 'N2', path: 'new', parentId: null, name: 'new' }]);
    sim.apply(opsOf(sim)[0]!);
    expect(opsOf(sim)).toEqual([{ kind: 'move-remote', rule: 'M1', remoteId: id, parentId: 2, name: 'a.txt', path: 'new/a.txt' }]);
  });


  it('a local name that was made safe or numbered keeps the remote name when only the folder changes', () => {
    const sim = new Sim();
    const dir = sim.addSynced('dir', 'folder');
    const id = sim.addSynced('a (2).txt', 'file', 'x', 'a.txt');
    sim.localMove('a (2).txt', 'dir/a (2).txt');
    expect(opsOf(sim)).toEqual([{ kind: 'move-remote', rule: 'M1', remoteId: id, parentId: dir, name: 'a.txt', path: 'dir/a (2).txt' }]);
  });
});

describe('M1: a moved item is the same inode and birth time (a freed inode number given to a new file is no move)', () => {
  /** The birth time the scan saw for the item at `path` (the simulator's items carry none: unknown). */
  const born = (sim: Sim, path: string, birthtimeMs: number) => sim.trees.local.set(path, { ...sim.trees.local.get(path)!, birthtimeMs });
  /** A synced item whose birth time base recorded, as the scan sees it. */
  const bornSynced = (sim: Sim, id: number, birthtimeMs: number) => {
    const b = sim.trees.base.get(id)!;
    sim.trees.base.set(id, { ...b, birthtimeMs });
    born(sim, b.path, birthtimeMs);
  };

  it('a synced file gone and a new file elsewhere with its inode and another birth time: trashed and uploaded', () => {
    const { sim, plans } = expectConverges(() => {
      const s = new Sim();
      s.addSynced('old', 'folder');
      s.addSynced('keep.txt', 'file', 'keep');
      bornSynced(s, s.addSynced('old/a.txt', 'file', 'a on main'), 1000);
      const freed = s.trees.local.get('old/a.txt')!.inode;
      s.localDelete('old');
      s.localMkdir('new');
      s.localWrite('new/b.txt', 'b on the branch', false, freed);
      born(s, 'new/b.txt', 2000);
      return s;
    });
    expect(kinds(plans[0]!.operations)).toEqual(['create-remote-folder[N2]', 'trash-remote[D2]']);
    expect(plans.flatMap((p) => p.operations).some((op) => op.kind === 'rename-remote' || op.kind === 'move-remote')).toBe(false);
    expect(remoteNames(sim)).toEqual(['keep.txt', 'new', 'new/b.txt']);
    // The drive's trash holds the deleted file under its own name, not the new one.
    expect(sim.trash).toEqual([{ side: 'remote', name: 'a.txt', content: 'a on main' }]);
  });

  it('the same with the old file where the new one is made: a trash and an upload, not a rename', () => {
    const sim = new Sim();
    const a = sim.addSynced('a.txt', 'file', 'aaa');
    bornSynced(sim, a, 1000);
    const freed = sim.trees.local.get('a.txt')!.inode;
    sim.localDelete('a.txt');
    sim.localWrite('b.txt', 'aaa', false, freed);
    born(sim, 'b.txt', 2000);
    expect(opsOf(sim)).toEqual([
      { kind: 'trash-remote', rule: 'D2', remoteId: a, count: 1 },
      { kind: 'upload', rule: 'N2', path: 'b.txt', parentId: null, name: 'b.txt' },
    ]);
  });

  it('a folder gone and a new folder with its inode and another birth time: trashed and created, not moved', () => {
    const sim = new Sim();
    const dir = sim.addSynced('lib', 'folder');
    bornSynced(sim, dir, 1000);
    const freed = sim.trees.local.get('lib')!.inode;
    sim.localDelete('lib');
    sim.trees.local.set('docs', { path: 'docs', type: 'folder', inode: freed, size: 0, mtimeMs: 5, birthtimeMs: 2000 });
    expect(kinds(opsOf(sim))).toEqual(['create-remote-folder[N2]', 'trash-remote[D2]']);
  });

  it('the same birth time is the file moved, even edited with something new at its old place (`mv a b; touch a`)', () => {
    const sim = new Sim();
    const a = sim.addSynced('a.txt', 'file', 'aaa');
    bornSynced(sim, a, 1000);
    sim.localMove('a.txt', 'b.txt');
    sim.localWrite('b.txt', 'aaa and more');
    born(sim, 'b.txt', 1000);
    sim.localWrite('a.txt', 'new');
    born(sim, 'a.txt', 3000);
    expect(kinds(opsOf(sim))).toEqual(['rename-remote[M1]', 'upload[N2]']);
    // Without birth times, the size and mtime the move changed make it an edit of a new file, as before.
    const before = new Sim();
    before.addSynced('a.txt', 'file', 'aaa');
    before.localMove('a.txt', 'b.txt');
    before.localWrite('b.txt', 'aaa and more');
    before.localWrite('a.txt', 'new');
    expect(kinds(opsOf(before))).toEqual(['replace-remote[C1]', 'upload[N2]']);
  });

  it('an unknown birth time on either side (a row from before, a file system without it) matches by inode as before', () => {
    for (const known of ['base', 'local', 'neither'] as const) {
      const sim = new Sim();
      const a = sim.addSynced('a.txt', 'file', 'aaa');
      if (known === 'base') sim.trees.base.set(a, { ...sim.trees.base.get(a)!, birthtimeMs: 1000 });
      const freed = sim.trees.local.get('a.txt')!.inode;
      sim.localDelete('a.txt');
      sim.localWrite('b.txt', 'bbb', false, freed);
      if (known === 'local') born(sim, 'b.txt', 2000);
      expect(kinds(opsOf(sim)), known).toEqual(['rename-remote[M1]']);
    }
  });
});

describe('M2: moved remotely, not locally → move-local', () => {
  it('a remote rename', () => {
    const sim = new Sim();
    const id = sim.addSynced('a.txt', 'file', 'x');
    sim.remoteMove(id, null, 'b.txt');
    expect(opsOf(sim)).toEqual([{ kind: 'move-local', rule: 'M2', remoteId: id, from: 'a.txt', to: 'b.txt' }]);
    sim.apply(opsOf(sim)[0]!);
    expect(opsOf(sim)).toEqual([]);
    expect(sim.trees.local.get('b.txt')?.inode).toBe(1); // moved, not downloaded
  });

  it("the local name is the remote name made safe for the volume: as it is on Linux, Win32's rules applied on Windows", () => {
    for (const [volume, to] of [[LINUX_NAMES, 'odd\\name.'], [WINDOWS, 'odd_name_']] as const) {
      const sim = new Sim(volume);
      const id = sim.addSynced('a.txt', 'file', 'x');
      sim.remoteMove(id, null, 'odd\\name.');
      expect(opsOf(sim, volume)).toEqual([{ kind: 'move-local', rule: 'M2', remoteId: id, from: 'a.txt', to }]);
    }
  });

  it('waits while the target folder is missing locally (it is created first)', () => {
    const sim = new Sim();
    const id = sim.addSynced('a.txt', 'file', 'x');
    const dir = sim.remoteCreate(null, 'dir', 'folder');
    sim.remoteMove(id, dir, 'a.txt');
    expect(opsOf(sim)).toEqual([{ kind: 'create-local-folder', rule: 'N1', remoteId: dir, path: 'dir' }]);
    sim.apply(opsOf(sim)[0]!);
    expect(opsOf(sim)).toEqual([{ kind: 'move-local', rule: 'M2', remoteId: id, from: 'a.txt', to: 'dir/a.txt' }]);
  });
});

describe('M3: moved on both sides, to different places → the remote location wins', () => {
  it('move-local from where the user put it to where the remote has it', () => {
    const sim = new Sim();
    const id = sim.addSynced('a.txt', 'file', 'x');
    sim.localMove('a.txt', 'local.txt');
    sim.remoteMove(id, null, 'remote.txt');
    expect(opsOf(sim)).toEqual([{ kind: 'move-local', rule: 'M3', remoteId: id, from: 'local.txt', to: 'remote.txt' }]);
  });
});

describe('M4: moved on both sides to the same place → record', () => {
  it('record only', () => {
    const sim = new Sim();
    const id = sim.addSynced('a.txt', 'file', 'x');
    sim.localMove('a.txt', 'b.txt');
    sim.remoteMove(id, null, 'b.txt');
    expect(opsOf(sim)).toEqual([{ kind: 'record', rule: 'M4', remoteId: id, path: 'b.txt' }]);
  });

  it('a content change with it is handled by the content rule, which records the place too', () => {
    const sim = new Sim();
    const id = sim.addSynced('a.txt', 'file', 'x');
    sim.localMove('a.txt', 'b.txt');
    sim.localWrite('b.txt', 'edited');
    sim.remoteMove(id, null, 'b.txt');
    expect(opsOf(sim)).toEqual([{ kind: 'replace-remote', rule: 'C1', path: 'b.txt', remoteId: id }]);
  });
});

describe('M6: in place on both sides, its given name changed (a duplicate on the drive appeared or went) → move-local', () => {
  it('the older of two duplicates trashed on the drive: the numbered copy takes the name back once it is free', () => {
    const build = () => {
      const s = new Sim();
      s.addSynced('a.txt', 'file', 'first');
      s.addSynced('a (2).txt', 'file', 'second', 'a.txt');
      s.remoteDelete(1);
      return s;
    };
    const { sim, plans } = expectConverges(build);
    expect(plans.map((p) => kinds(p.operations))).toEqual([['trash-local[D1]'], ['move-local[M6]']]);
    expect(plans[1]!.operations).toEqual([{ kind: 'move-local', rule: 'M6', remoteId: 2, from: 'a (2).txt', to: 'a.txt' }]);
    expect(localPaths(sim)).toEqual(['a.txt']);
  });

  it('a numbered copy renamed on the drive to a free name follows it (M2), and the other keeps its own', () => {
    const sim = new Sim();
    sim.addSynced('a.txt', 'file', 'first');
    const second = sim.addSynced('a (2).txt', 'file', 'second', 'a.txt');
    sim.remoteMove(second, null, 'b.txt');
    expect(opsOf(sim)).toEqual([{ kind: 'move-local', rule: 'M2', remoteId: second, from: 'a (2).txt', to: 'b.txt' }]);
  });

  it('a name the user chose that the drive refused stays (only names the drive gives follow)', () => {
    const sim = new Sim();
    sim.addSynced('ab', 'folder', '', 'abc');
    expect(opsOf(sim)).toEqual([]);
    expect(planChanges(sim.snapshot()).operations).toEqual([]);
  });

  it('names swapped on the drive wait on each other: the first goes to a spare name, then each takes its own', () => {
    const build = () => {
      const s = new Sim();
      const a = s.addSynced('a.txt', 'file', 'was a');
      const b = s.addSynced('b.txt', 'file', 'was b');
      s.remoteMove(a, null, 'b.txt');
      s.remoteMove(b, null, 'a.txt');
      return s;
    };
    const { sim, plans } = expectConverges(build);
    expect(sim.localContent.get('b.txt')).toBe('was a');
    expect(sim.localContent.get('a.txt')).toBe('was b');
    expect(plans.length).toBeLessThanOrEqual(3);
  });

  it('settled trees whose numbered copy lost its clash are not settled: the move is planned', () => {
    const sim = new Sim();
    sim.addSynced('a (2).txt', 'file', 'alone', 'a.txt');
    expect(settled(sim.snapshot())).toBe(false);
    expect(opsOf(sim)).toEqual([{ kind: 'move-local', rule: 'M6', remoteId: 1, from: 'a (2).txt', to: 'a.txt' }]);
  });
});

describe('D1: same locally, deleted remotely → trash-local', () => {
  it('a file', () => {
    const sim = new Sim();
    const id = sim.addSynced('a.txt', 'file', 'x');
    sim.remoteDelete(id);
    const p = plan(sim.snapshot());
    expect(p.operations).toEqual([{ kind: 'trash-local', rule: 'D1', path: 'a.txt', remoteId: id, count: 1 }]);
    expect(p.deletions).toBe(1);
    syncUntilQuiet(sim);
    expect(sim.trash).toEqual([{ side: 'local', name: 'a.txt', content: 'x' }]);
  });

  it('a folder is one operation that counts its subtree', () => {
    const sim = new Sim();
    const dir = sim.addSynced('dir', 'folder');
    sim.addSynced('dir/a.txt', 'file', 'a');
    sim.addSynced('dir/sub', 'folder');
    sim.addSynced('dir/sub/b.txt', 'file', 'b');
    sim.remoteDelete(dir);
    const p = plan(sim.snapshot());
    expect(p.operations).toEqual([{ kind: 'trash-local', rule: 'D1', path: 'dir', remoteId: dir, count: 4 }]);
    expect(p.deletions).toBe(4);
  });

  it('waits while a child moves out remotely', () => {
    const sim = new Sim();
    const dir = sim.addSynced('dir', 'folder');
    const a = sim.addSynced('dir/a.txt', 'file', 'a');
    sim.remoteMove(a, null, 'a.txt');
    sim.remoteDelete(dir);
    expect(opsOf(sim)).toEqual([{ kind: 'move-local', rule: 'M2', remoteId: a, from: 'dir/a.txt', to: 'a.txt' }]);
    sim.apply(opsOf(sim)[0]!);
    expect(opsOf(sim)).toEqual([{ kind: 'trash-local', rule: 'D1', path: 'dir', remoteId: dir, count: 1 }]);
  });
});

describe('D2: deleted locally, not changed remotely → trash-remote', () => {
  it('a file', () => {
    const sim = new Sim();
    const id = sim.addSynced('a.txt', 'file', 'x');
    sim.localDelete('a.txt');
    const p = plan(sim.snapshot());
    expect(p.operations).toEqual([{ kind: 'trash-remote', rule: 'D2', remoteId: id, count: 1 }]);
    expect(p.deletions).toBe(1);
    syncUntilQuiet(sim);
    expect(sim.trash).toEqual([{ side: 'remote', name: 'a.txt', content: 'x' }]);
  });

  it('a folder is one operation that counts its subtree', () => {
    const sim = new Sim();
    const dir = sim.addSynced('dir', 'folder');
    sim.addSynced('dir/a.txt', 'file', 'a');
    sim.addSynced('dir/sub', 'folder');
    sim.addSynced('dir/sub/b.txt', 'file', 'b');
    sim.localDelete('dir');
    const p = plan(sim.snapshot());
    expect(p.operations).toEqual([{ kind: 'trash-remote', rule: 'D2', remoteId: dir, count: 4 }]);
    expect(p.deletions).toBe(4);
  });

  it('waits while a child moves out locally', () => {
    const sim = new Sim();
    const dir = sim.addSynced('dir', 'folder');
    const a = sim.addSynced('dir/a.txt', 'file', 'a');
    sim.localMove('dir/a.txt', 'a.txt');
    sim.localDelete('dir');
    expect(opsOf(sim)).toEqual([{ kind: 'move-remote', rule: 'M1', remoteId: a, parentId: null, name: 'a.txt', path: 'a.txt' }]);
    sim.apply(opsOf(sim)[0]!);
    expect(opsOf(sim)).toEqual([{ kind: 'trash-remote', rule: 'D2', remoteId: dir, count: 1 }]);
  });
});

describe('D3: deleted on both sides → forget', () => {
  it('forget', () => {
    const sim = new Sim();
    const id = sim.addSynced('a.txt', 'file', 'x');
    sim.localDelete('a.txt');
    sim.remoteDelete(id);
    const p = plan(sim.snapshot());
    expect(p.operations).toEqual([{ kind: 'forget', rule: 'D3', remoteId: id }]);
    expect(p.deletions).toBe(0);
  });
});

describe('D4: edit beats delete', () => {
  it('changed locally, deleted remotely → forget, then uploaded as new', () => {
    const build = () => {
      const s = new Sim();
      const id = s.addSynced('a.txt', 'file', 'x');
      s.localWrite('a.txt', 'edited');
      s.remoteDelete(id);
      return s;
    };
    expect(opsOf(build())).toEqual([{ kind: 'forget', rule: 'D4', remoteId: 1 }]);
    const { plans } = expectConverges(build, {}, ['edited']);
    expect(kinds(plans[1]!.operations)).toEqual(['upload[N2]']);
  });

  it('deleted locally, changed remotely → the remote version comes back', () => {
    const sim = new Sim();
    const id = sim.addSynced('a.txt', 'file', 'x');
    sim.localDelete('a.txt');
    sim.remoteEdit(id, 'edited');
    expect(opsOf(sim)).toEqual([{ kind: 'download', rule: 'D4', remoteId: id, path: 'a.txt' }]);
  });
});

describe('D5: folder deleted remotely with something new, edited or moved in inside → forget the folder', () => {
  it('the folder is created again remotely and its new content follows', () => {
    const build = () => {
      const s = new Sim();
      const dir = s.addSynced('dir', 'folder');
      s.addSynced('dir/old.txt', 'file', 'old');
      s.localWrite('dir/new.txt', 'new');
      s.remoteDelete(dir);
      return s;
    };
    expect(opsOf(build())).toEqual([
      { kind: 'forget', rule: 'D5', remoteId: 1 },
      { kind: 'trash-local', rule: 'D1', path: 'dir/old.txt', remoteId: 2, count: 1 },
    ]);
    const { sim } = expectConverges(build, {}, ['new', 'old']);
    expect(remoteNames(sim)).toEqual(['dir', 'dir/new.txt']);
  });
});

describe('D6: folder deleted locally with something new, edited or moved in remotely → create-local-folder', () => {
  it('the folder comes back with the changed content; the rest is trashed remotely', () => {
    const build = () => {
      const s = new Sim();
      const dir = s.addSynced('dir', 'folder');
      s.addSynced('dir/old.txt', 'file', 'old');
      s.localDelete('dir');
      s.remoteCreate(dir, 'new.txt', 'file', 'new');
      return s;
    };
    expect(opsOf(build())).toEqual([
      { kind: 'create-local-folder', rule: 'D6', remoteId: 1, path: 'dir' },
      { kind: 'trash-remote', rule: 'D2', remoteId: 2, count: 1 },
    ]);
    const { sim, plans } = expectConverges(build, {}, ['new', 'old']);
    expect(kinds(plans[1]!.operations)).toEqual(['download[N1]']);
    expect(localPaths(sim)).toEqual(['dir', 'dir/new.txt']);
  });
});

// --- Items on one side only -----------------------------------------------------------------------------------

describe('N1: remote entry, nothing locally → download / create-local-folder', () => {
  it('a file and a folder; the folder content waits one pass', () => {
    const sim = new Sim();
    const file = sim.remoteCreate(null, 'a.txt', 'file', 'a');
    const dir = sim.remoteCreate(null, 'dir', 'folder');
    sim.remoteCreate(dir, 'b.txt', 'file', 'b');
    expect(opsOf(sim)).toEqual([
      { kind: 'download', rule: 'N1', remoteId: file, path: 'a.txt' },
      { kind: 'create-local-folder', rule: 'N1', remoteId: dir, path: 'dir' },
    ]);
    syncUntilQuiet(sim);
    expect(localPaths(sim)).toEqual(['a.txt', 'dir', 'dir/b.txt']);
  });

  /** Names Linux and the drive both take, that Win32's rules refuse. */
  const LINUX_ONLY = ['back\\slash.txt', 'a:b?.txt', 'new\nline.txt', 'tab\there.txt'];
  const givenPaths = (names: readonly string[], volume: NameRules) => {
    const sim = new Sim(volume);
    for (const name of names) sim.remoteCreate(null, name, 'file', name);
    return opsOf(sim, volume).map((op) => (op.kind === 'download' && op.rule === 'N1' ? op.path : describeOp(op)));
  };

  it("on a volume with Linux's rules the given name is the drive's name itself: a backslash, ':', '?', a newline, a tab", () => {
    expect(givenPaths(LINUX_ONLY, LINUX_NAMES)).toEqual(LINUX_ONLY);
    const sim = new Sim();
    for (const name of LINUX_ONLY) sim.remoteCreate(null, name, 'file', name);
    syncUntilQuiet(sim);
    expect(localPaths(sim)).toEqual([...LINUX_ONLY].sort());
    expect(opsOf(sim)).toEqual([]);
  });

  it("on a volume with Win32's rules the given name is made safe", () => {
    expect(givenPaths(LINUX_ONLY, WINDOWS)).toEqual(['back_slash.txt', 'a_b_.txt', 'new_line.txt', 'tab_here.txt']);
  });

  it("'/', NUL, '..' and names over 255 bytes are made safe on both", () => {
    const untrusted = ['a/b.txt', 'nul\0.txt', '..', `${'x'.repeat(300)}.txt`];
    for (const volume of [LINUX_NAMES, WINDOWS]) {
      const paths = givenPaths(untrusted, volume);
      expect(paths.slice(0, 2)).toEqual(['a_b.txt', 'nul_.txt']);
      expect(paths[2]).toBe(volume.windowsNames ? '___' : '_..');
      expect(paths[3]).toMatch(/^x+~[0-9a-f]{8}\.txt$/);
      for (const path of paths) {
        expect(path.split('/')).toHaveLength(1);
        expect(path).not.toContain('\0');
        expect(Buffer.byteLength(path)).toBeLessThanOrEqual(255);
      }
    }
  });

  it("a name an older version made safe on a volume with Linux's rules goes to the drive's name, nothing renamed on the drive (M6)", () => {
    const sim = new Sim();
    const id = sim.addSynced('back_slash.txt', 'file', 'x', 'back\\slash.txt');
    expect(opsOf(sim)).toEqual([{ kind: 'move-local', rule: 'M6', remoteId: id, from: 'back_slash.txt', to: 'back\\slash.txt' }]);
    syncUntilQuiet(sim);
    expect(localPaths(sim)).toEqual(['back\\slash.txt']);
    expect(remoteNames(sim)).toEqual(['back\\slash.txt']);
  });
});

describe('N2: local item, no entry → upload / create-remote-folder', () => {
  it('a file in the root', () => {
    const sim = new Sim();
    sim.localWrite('a.txt', 'a');
    expect(opsOf(sim)).toEqual([{ kind: 'upload', rule: 'N2', path: 'a.txt', parentId: null, name: 'a.txt' }]);
  });

  it('inside a new folder: only the folder is created this pass', () => {
    const sim = new Sim();
    sim.localMkdir('new');
    sim.localMkdir('new/deeper');
    sim.localWrite('new/deeper/a.txt', 'a');
    expect(opsOf(sim)).toEqual([{ kind: 'create-remote-folder', rule: 'N2', path: 'new', parentId: null, name: 'new' }]);
    const plans = syncUntilQuiet(sim);
    expect(plans.map((p) => kinds(p.operations))).toEqual([
      ['create-remote-folder[N2]'],
      ['create-remote-folder[N2]'],
      ['upload[N2]'],
    ]);
  });

  it('ignored names are never uploaded', () => {
    const sim = new Sim();
    for (const name of ['~$doc.docx', '.~lock.a#', 'a.swp', 'b.tmp', 'c.part', '.DS_Store', 'Thumbs.db', 'keep.txt']) sim.localWrite(name, name);
    const ignored = /^(~\$|\.~lock\.)|\.(swp|tmp|part|crdownload)$|^(\.DS_Store|Thumbs\.db|desktop\.ini)$/;
    const ops = opsOf(sim, { isIgnored: (path) => ignored.test(path) });
    expect(ops).toEqual([{ kind: 'upload', rule: 'N2', path: 'keep.txt', parentId: null, name: 'keep.txt' }]);
  });

  it("a local name Linux takes (a backslash, ':', '?', a newline, a tab) goes up as it is, and stays", () => {
    const sim = new Sim();
    const names = ['back\\slash.txt', 'a:b?.txt', 'new\nline.txt', 'tab\there.txt'];
    for (const name of names) sim.localWrite(name, name);
    expect(opsOf(sim)).toEqual([...names].sort().map((name) => ({ kind: 'upload', rule: 'N2', path: name, parentId: null, name })));
    syncUntilQuiet(sim);
    expect(localPaths(sim)).toEqual([...names].sort());
    expect(remoteNames(sim)).toEqual([...names].sort());
  });

  it('short file names upload (only folder names and renames have a length rule)', () => {
    const sim = new Sim();
    sim.localWrite('x', 'x');
    expect(opsOf(sim)).toEqual([{ kind: 'upload', rule: 'N2', path: 'x', parentId: null, name: 'x' }]);
  });
});

describe('N6: a new folder whose name the service refuses to create (under 3 or over 200 characters)', () => {
  it('is made by uploading the shallowest file inside it with a relativePath; the rest follows into it', () => {
    const sim = new Sim();
    sim.localMkdir('js');
    sim.localMkdir('js/ui');
    sim.localWrite('js/ui/deep.js', 'deep');
    sim.localWrite('js/app.js', 'app');
    const p = plan(sim.snapshot());
    expect(p.operations).toEqual([
      { kind: 'upload', rule: 'N6', path: 'js/app.js', parentId: null, name: 'app.js', folders: [{ path: 'js', name: 'js' }] },
    ]);
    expect(p.skipped).toEqual([]);
    syncUntilQuiet(sim);
    expect(remoteNames(sim)).toEqual(['js', 'js/app.js', 'js/ui', 'js/ui/deep.js']);
  });

  it('a folder whose files are all deeper is made with the folders on the way', () => {
    const sim = new Sim();
    sim.localMkdir('fr');
    sim.localMkdir('fr/lc');
    sim.localWrite('fr/lc/messages.po', 'bonjour');
    expect(opsOf(sim)).toEqual([
      {
        kind: 'upload',
        rule: 'N6',
        path: 'fr/lc/messages.po',
        parentId: null,
        name: 'messages.po',
        folders: [
          { path: 'fr', name: 'fr' },
          { path: 'fr/lc', name: 'lc' },
        ],
      },
    ]);
    syncUntilQuiet(sim);
    expect(remoteNames(sim)).toEqual(['fr', 'fr/lc', 'fr/lc/messages.po']);
  });

  it('an empty one cannot be made: reported once as left out, not a failure; it follows once it holds a file', () => {
    const sim = new Sim();
    sim.localMkdir('db');
    const p = plan(sim.snapshot());
    expect(p.operations).toEqual([]);
    expect(p.skipped).toEqual([{ path: 'db', reason: expect.stringContaining('empty folder named "db"'), fails: false }]);
    sim.localWrite('db/rows.sql', 'rows');
    syncUntilQuiet(sim);
    expect(remoteNames(sim)).toEqual(['db', 'db/rows.sql']);
  });

  it('one holding only synced items moved in cannot be made, and they cannot follow: a failure naming the folder; under a longer name they move in', () => {
    const sim = new Sim();
    const file = sim.addSynced('deep.txt', 'file', 'deep');
    sim.localMkdir('ab');
    sim.localMove('deep.txt', 'ab/deep.txt');
    const p = plan(sim.snapshot());
    expect(p.operations).toEqual([]);
    expect(p.skipped).toEqual([{ path: 'ab', reason: expect.stringContaining('what was moved into it stays where it was on the drive'), fails: true }]);
    sim.localMove('ab', 'abc');
    syncUntilQuiet(sim);
    expect(remoteNames(sim)).toEqual(['abc', 'abc/deep.txt']);
    expect(sim.trees.remote.has(file)).toBe(true);
  });

  it('ignored files do not carry it', () => {
    const sim = new Sim();
    sim.localMkdir('ab');
    sim.localWrite('ab/x.tmp', 'temp');
    const p = plan(sim.snapshot(), { isIgnored: (path) => path.endsWith('.tmp') });
    expect(p.operations).toEqual([]);
    expect(p.skipped).toEqual([{ path: 'ab', reason: expect.any(String), fails: false }]);
  });

  it('a remote folder of that name already there is matched (N3), not made again', () => {
    const sim = new Sim();
    const id = sim.remoteCreate(null, 'js', 'folder');
    sim.localMkdir('js');
    expect(opsOf(sim)).toEqual([{ kind: 'record', rule: 'N3', remoteId: id, path: 'js' }]);
  });
});

describe('M5: renamed locally to a name the service refuses → the entry keeps its name on the drive', () => {
  it('a file renamed to a short name: recorded, the drive keeps the old name; the user is told once', () => {
    const sim = new Sim();
    const id = sim.addSynced('abc.txt', 'file', 'x');
    sim.localMove('abc.txt', 'ab');
    const p = plan(sim.snapshot());
    expect(p.operations).toEqual([{ kind: 'record', rule: 'M5', remoteId: id, path: 'ab' }]);
    expect(p.notes).toEqual([{ path: 'ab', message: expect.stringContaining('kept there as "abc.txt"') }]);
    syncUntilQuiet(sim);
    expect(remoteNames(sim)).toEqual(['abc.txt']);
    expect(sim.trees.base.get(id)).toMatchObject({ path: 'ab', remoteName: 'abc.txt' });
    expect(plan(sim.snapshot()).operations).toEqual([]);
  });

  it('a folder renamed to a short name keeps its entry, and its children theirs', () => {
    const sim = new Sim();
    const dir = sim.addSynced('data', 'folder');
    const child = sim.addSynced('data/rows.sql', 'file', 'rows');
    sim.localMove('data', 'db');
    expect(opsOf(sim)).toEqual([{ kind: 'record', rule: 'M5', remoteId: dir, path: 'db' }]);
    syncUntilQuiet(sim);
    expect(remoteNames(sim)).toEqual(['data', 'data/rows.sql']);
    expect(sim.trees.base.get(child)).toMatchObject({ path: 'db/rows.sql' });
  });

  it('moved into another folder and renamed short: moved, keeping its name on the drive', () => {
    const sim = new Sim();
    const dir = sim.addSynced('dir', 'folder');
    const id = sim.addSynced('abc.txt', 'file', 'x');
    sim.localMove('abc.txt', 'dir/ab');
    expect(opsOf(sim)).toEqual([{ kind: 'move-remote', rule: 'M5', remoteId: id, parentId: dir, name: 'abc.txt', path: 'dir/ab' }]);
  });

  it('renamed short and edited: the edit is uploaded under the name the drive keeps (C1)', () => {
    const sim = new Sim();
    const id = sim.addSynced('abc.txt', 'file', 'x');
    sim.localMove('abc.txt', 'ab');
    sim.localWrite('ab', 'edited');
    expect(opsOf(sim)).toEqual([{ kind: 'replace-remote', rule: 'C1', path: 'ab', remoteId: id }]);
    syncUntilQuiet(sim);
    expect(remoteNames(sim)).toEqual(['abc.txt']);
  });
});

describe('N3: folder on both sides at one path → record', () => {
  it('matched, nothing transferred', () => {
    const sim = new Sim();
    sim.localMkdir('dir');
    const id = sim.remoteCreate(null, 'dir', 'folder');
    expect(opsOf(sim)).toEqual([{ kind: 'record', rule: 'N3', remoteId: id, path: 'dir' }]);
  });
});

describe('N4: file on both sides at one path → merge', () => {
  it('identical bytes: recorded, the local file untouched', () => {
    const sim = new Sim();
    sim.localWrite('a.txt', 'same');
    const id = sim.remoteCreate(null, 'a.txt', 'file', 'same');
    expect(opsOf(sim)).toEqual([{ kind: 'merge', rule: 'N4', remoteId: id, path: 'a.txt' }]);
    syncUntilQuiet(sim);
    expect(localPaths(sim)).toEqual(['a.txt']);
    expect(sim.trees.local.get('a.txt')?.inode).toBe(1);
  });

  it('different bytes: handled as C3', () => {
    const { sim } = expectConverges(() => {
      const s = new Sim();
      s.localWrite('a.txt', 'mine');
      s.remoteCreate(null, 'a.txt', 'file', 'theirs');
      return s;
    });
    expect(sim.localContent.get('a.txt')).toBe('theirs');
    expect(localPaths(sim)).toHaveLength(2);
  });
});

describe('N5: file on one side, folder on the other, at one path → conflict', () => {
  it('local file, remote folder: the local file moves aside', () => {
    const sim = new Sim();
    sim.localWrite('thing', 'file');
    const id = sim.remoteCreate(null, 'thing', 'folder');
    expect(opsOf(sim)).toEqual([{ kind: 'conflict', rule: 'N5', remoteId: id, path: 'thing' }]);
    const { sim: done } = expectConverges(() => {
      const s = new Sim();
      s.localWrite('thing', 'file');
      const dir = s.remoteCreate(null, 'thing', 'folder');
      s.remoteCreate(dir, 'inside.txt', 'file', 'inside');
      return s;
    });
    expect(done.trees.local.get('thing')?.type).toBe('folder');
    expect(localPaths(done)).toContain('thing/inside.txt');
  });

  it('local folder, remote file: the local folder (with its content) moves aside', () => {
    const { sim } = expectConverges(() => {
      const s = new Sim();
      s.localMkdir('thing');
      s.localWrite('thing/a.txt', 'a');
      s.remoteCreate(null, 'thing', 'file', 'remote');
      return s;
    });
    expect(sim.trees.local.get('thing')?.type).toBe('file');
    expect(localPaths(sim).filter((p) => p.endsWith('/a.txt'))).toHaveLength(1);
  });
});

// --- Guards ---------------------------------------------------------------------------------------------------

describe('unreachable remote entries are treated as deleted', () => {
  it('a parent that is missing from the listing', () => {
    const sim = new Sim();
    const dir = sim.addSynced('dir', 'folder');
    const a = sim.addSynced('dir/a.txt', 'file', 'a');
    sim.trees.remote.delete(dir); // the listing lost the folder but still shows the file
    const ops = opsOf(sim);
    expect(ops).toEqual([{ kind: 'trash-local', rule: 'D1', path: 'dir', remoteId: dir, count: 2 }]);
    expect(a).toBe(2);
  });

  it('a parent that is a file, and a cycle: nothing is downloaded', () => {
    const sim = new Sim();
    const file = sim.remoteCreate(null, 'f.txt', 'file', 'f');
    sim.trees.remote.set(10, { id: 10, parentId: file, name: 'under-a-file', type: 'file', size: 1, updatedAt: 't' });
    sim.trees.remote.set(11, { id: 11, parentId: 12, name: 'c1', type: 'folder', size: 0, updatedAt: 't' });
    sim.trees.remote.set(12, { id: 12, parentId: 11, name: 'c2', type: 'folder', size: 0, updatedAt: 't' });
    sim.trees.remote.set(13, { id: 13, parentId: 99, name: 'orphan', type: 'file', size: 1, updatedAt: 't' });
    expect(opsOf(sim)).toEqual([{ kind: 'download', rule: 'N1', remoteId: file, path: 'f.txt' }]);
  });

  it('a synced item whose remote folder joined a cycle is deleted remotely: trashed locally', () => {
    const sim = new Sim();
    const dir = sim.addSynced('dir', 'folder');
    sim.addSynced('dir/a.txt', 'file', 'a');
    sim.trees.remote.set(dir, { ...sim.trees.remote.get(dir)!, parentId: dir });
    expect(opsOf(sim)).toEqual([{ kind: 'trash-local', rule: 'D1', path: 'dir', remoteId: dir, count: 2 }]);
  });
});

describe('base rows the planner must not misread', () => {
  it('a row whose folder has no row any more is still found at its path (not taken for deleted)', () => {
    const sim = new Sim();
    const dir = sim.addSynced('dir', 'folder');
    sim.addSynced('dir/a.txt', 'file', 'a');
    sim.trees.base.delete(dir); // as after a crash between two mirror writes
    expect(opsOf(sim)).toEqual([{ kind: 'record', rule: 'N3', remoteId: dir, path: 'dir' }]);
  });
});

describe('safe local names for untrusted remote names', () => {
  const downloadsOf = (names: string[], volume: NameRules = WINDOWS) => {
    const sim = new Sim(volume);
    for (const name of names) sim.remoteCreate(null, name, 'file', name);
    return opsOf(sim, volume).map((op) => (op.kind === 'download' ? op.path : op.kind));
  };

  it('on Windows: ., .., a backslash, a slash, trailing dots and spaces, reserved device names', () => {
    expect(downloadsOf(['..', '.', 'a\\b.txt', 'c/d.txt', 'dots...', 'space ', 'CON', 'nul.txt'])).toEqual([
      '___',
      '__',
      'a_b.txt',
      'c_d.txt',
      'dots___',
      'space_',
      '_CON',
      '_nul.txt',
    ]);
  });

  it('on Linux: ., .. and a slash only; a backslash, trailing dots and spaces and device names are names Linux takes', () => {
    expect(downloadsOf(['..', '.', 'a\\b.txt', 'c/d.txt', 'dots...', 'space ', 'CON', 'nul.txt'], LINUX_NAMES)).toEqual([
      '_..',
      '_.',
      'a\\b.txt',
      'c_d.txt',
      'dots...',
      'space ',
      'CON',
      'nul.txt',
    ]);
  });

  for (const volume of [LINUX_NAMES, WINDOWS]) {
    it(`names over 255 bytes are cut, keeping the extension and a digest (${volume.windowsNames ? 'Windows' : 'Linux'})`, () => {
      const long = `${'é'.repeat(200)}.txt`;
      const [path] = downloadsOf([long], volume);
      expect(Buffer.byteLength(path!)).toBeLessThanOrEqual(255);
      expect(path).toMatch(/~[0-9a-f]{8}\.txt$/);
      expect(safeLocalName(`${'é'.repeat(200)}x.txt`, volume)).not.toBe(path); // two long names stay distinct
    });

    it(`no path ever leaves the sync root (${volume.windowsNames ? 'Windows' : 'Linux'})`, () => {
      const paths = downloadsOf(['../escape.txt', '/abs.txt', '..\\up.txt', '../..', 'nul\0byte.txt'], volume);
      expect(paths).toEqual(
        volume.windowsNames
          ? ['.._escape.txt', '_abs.txt', '.._up.txt', '..___', 'nul_byte.txt']
          : ['.._escape.txt', '_abs.txt', '..\\up.txt', '.._..', 'nul_byte.txt'],
      );
      for (const path of paths) expect(path.split('/')).toHaveLength(1);
    });
  }

  it('NFC and NFD twins: the second gets "(2)", in its own spelling where the volume keeps spellings apart', () => {
    expect(downloadsOf(['caf\u00e9.txt', 'cafe\u0301.txt'], { ...LINUX_NAMES, normalisesUnicode: true })).toEqual(['café.txt', 'café (2).txt']);
    expect(downloadsOf(['caf\u00e9.txt', 'cafe\u0301.txt'], LINUX_NAMES)).toEqual(['café.txt', 'cafe\u0301 (2).txt']);
  });

  it('case twins on a case-insensitive volume: the second gets "(2)"; on a case-sensitive one, both keep their names', () => {
    const sim = new Sim({ caseInsensitive: true });
    sim.remoteCreate(null, 'Read.me', 'file', '1');
    sim.remoteCreate(null, 'read.me', 'file', '2');
    expect(opsOf(sim, { caseInsensitive: true }).map((op) => (op as { path: string }).path)).toEqual(['Read.me', 'read (2).me']);
    expect(opsOf(sim).map((op) => (op as { path: string }).path)).toEqual(['Read.me', 'read.me']);
  });

  it("names Win32's rules make one are twins on Windows only: on Linux both keep their names", () => {
    expect(downloadsOf(['a:b.txt', 'a_b.txt'])).toEqual(['a_b.txt', 'a_b (2).txt']);
    expect(downloadsOf(['a:b.txt', 'a_b.txt'], LINUX_NAMES)).toEqual(['a:b.txt', 'a_b.txt']);
  });
});

describe('duplicate remote names', () => {
  it('the second entry gets "name (2).ext" mapped to its own id; nothing is renamed remotely', () => {
    const { sim } = expectConverges(() => {
      const s = new Sim();
      s.remoteCreate(null, 'a.txt', 'file', 'first');
      s.remoteCreate(null, 'a.txt', 'file', 'second');
      return s;
    });
    expect(sim.localContent.get('a.txt')).toBe('first');
    expect(sim.localContent.get('a (2).txt')).toBe('second');
    expect(remoteNames(sim)).toEqual(['a.txt', 'a.txt']);
  });

  it('named the same on every computer: by entry id, whichever this computer had first (a newer entry synced here moves aside)', () => {
    const build = () => {
      const s = new Sim();
      s.remoteCreate(null, 'a.txt', 'file', 'older'); // seen here only now
      s.addSynced('a.txt', 'file', 'newer'); // a later entry, synced here at the name
      return s;
    };
    expect(opsOf(build())).toEqual([{ kind: 'move-local', rule: 'M6', remoteId: 2, from: 'a.txt', to: 'a (2).txt' }]);
    const { sim } = expectConverges(build);
    expect(sim.localContent.get('a.txt')).toBe('older');
    expect(sim.localContent.get('a (2).txt')).toBe('newer');
  });

  it('a local rename of the numbered copy renames that entry only', () => {
    const sim = new Sim();
    sim.addSynced('a.txt', 'file', 'first');
    const second = sim.addSynced('a (2).txt', 'file', 'second', 'a.txt');
    sim.localMove('a (2).txt', 'b.txt');
    expect(opsOf(sim)).toEqual([{ kind: 'rename-remote', rule: 'M1', remoteId: second, name: 'b.txt', path: 'b.txt' }]);
  });

  it('a file deleted here that comes back (D4) still has its name: its numbered twin is not renamed onto it and back', () => {
    const build = () => {
      const s = new Sim();
      const first = s.addSynced('a.txt', 'file', 'first');
      s.addSynced('a (2).txt', 'file', 'second', 'a.txt');
      s.localDelete('a.txt');
      s.remoteEdit(first, 'edited there');
      return s;
    };
    const { sim, plans } = expectConverges(build);
    expect(plans.map((p) => p.operations)).toEqual([[{ kind: 'download', rule: 'D4', remoteId: 1, path: 'a.txt' }]]);
    expect(sim.localContent.get('a (2).txt')).toBe('second');
  });

  it('a folder deleted here that comes back (D6) and one moved on both sides to its name (M3) are named by id at once', () => {
    const build = () => {
      const s = new Sim();
      const docs = s.addSynced('Docs', 'folder');
      const other = s.addSynced('Other', 'folder');
      s.localDelete('Docs');
      s.remoteCreate(docs, 'theirs.txt', 'file', 'theirs');
      s.localMove('Other', 'Moved');
      s.remoteMove(other, null, 'Docs');
      return s;
    };
    expect(opsOf(build())).toEqual([
      { kind: 'create-local-folder', rule: 'D6', remoteId: 1, path: 'Docs' },
      { kind: 'move-local', rule: 'M3', remoteId: 2, from: 'Moved', to: 'Docs (2)' },
    ]);
    const { sim } = expectConverges(build);
    expect(localPaths(sim)).toEqual(['Docs', 'Docs (2)', 'Docs/theirs.txt']);
  });
});

describe('case-only renames', () => {
  for (const caseInsensitive of [false, true]) {
    it(`local a.txt → A.txt (case-${caseInsensitive ? 'insensitive' : 'sensitive'} volume) renames the entry`, () => {
      const sim = new Sim({ caseInsensitive });
      const id = sim.addSynced('a.txt', 'file', 'x');
      sim.localMove('a.txt', 'A.txt');
      expect(opsOf(sim, { caseInsensitive })).toEqual([{ kind: 'rename-remote', rule: 'M1', remoteId: id, name: 'A.txt', path: 'A.txt' }]);
    });

    it(`remote a.txt → A.txt (case-${caseInsensitive ? 'insensitive' : 'sensitive'} volume) renames the file`, () => {
      const sim = new Sim({ caseInsensitive });
      const id = sim.addSynced('a.txt', 'file', 'x');
      sim.remoteMove(id, null, 'A.txt');
      expect(opsOf(sim, { caseInsensitive })).toEqual([{ kind: 'move-local', rule: 'M2', remoteId: id, from: 'a.txt', to: 'A.txt' }]);
    });
  }
});

describe('A/B inverted into B/A resolves over passes', () => {
  it('locally: B moves out first, then A moves into it', () => {
    const { sim, plans } = expectConverges(() => {
      const s = new Sim();
      s.addSynced('Aaa', 'folder');
      s.addSynced('Aaa/Bbb', 'folder');
      s.addSynced('Aaa/Bbb/f.txt', 'file', 'f');
      s.localMove('Aaa/Bbb', 'Bbb');
      s.localMove('Aaa', 'Bbb/Aaa');
      return s;
    });
    expect(plans.map((p) => kinds(p.operations))).toEqual([['move-remote[M1]'], ['move-remote[M1]']]);
    expect(remoteNames(sim)).toEqual(['Bbb', 'Bbb/Aaa', 'Bbb/f.txt']);
  });

  it('remotely: the same, with local moves', () => {
    const { sim } = expectConverges(() => {
      const s = new Sim();
      const a = s.addSynced('Aaa', 'folder');
      const b = s.addSynced('Aaa/Bbb', 'folder');
      s.addSynced('Aaa/Bbb/f.txt', 'file', 'f');
      s.remoteMove(b, null, 'Bbb');
      s.remoteMove(a, b, 'Aaa');
      return s;
    });
    expect(localPaths(sim)).toEqual(['Bbb', 'Bbb/Aaa', 'Bbb/f.txt']);
  });
});

describe('a file replaced by a folder (and the reverse)', () => {
  it('locally: the old entry is trashed first, then the folder and its content are created', () => {
    const { sim, plans } = expectConverges(
      () => {
        const s = new Sim();
        s.addSynced('thing', 'file', 'old');
        s.localDelete('thing');
        s.localMkdir('thing');
        s.localWrite('thing/inner.txt', 'inner');
        return s;
      },
      {},
      ['old', 'inner'],
    );
    expect(plans.map((p) => kinds(p.operations))).toEqual([['trash-remote[D2]'], ['create-remote-folder[N2]'], ['upload[N2]']]);
    expect(remoteNames(sim)).toEqual(['thing', 'thing/inner.txt']);
  });

  it('locally, folder → file', () => {
    const { sim } = expectConverges(
      () => {
        const s = new Sim();
        s.addSynced('thing', 'folder');
        s.addSynced('thing/inner.txt', 'file', 'inner');
        s.localDelete('thing');
        s.localWrite('thing', 'now a file');
        return s;
      },
      {},
      ['inner', 'now a file'],
    );
    expect(remoteNames(sim)).toEqual(['thing']);
    expect(sim.trees.remote.get([...sim.trees.base.values()][0]!.remoteId)?.type).toBe('file');
  });

  it('remotely: the local file is trashed first, then the folder comes down', () => {
    const { sim, plans } = expectConverges(
      () => {
        const s = new Sim();
        const id = s.addSynced('thing', 'file', 'old');
        s.remoteDelete(id);
        const dir = s.remoteCreate(null, 'thing', 'folder');
        s.remoteCreate(dir, 'inner.txt', 'file', 'inner');
        return s;
      },
      {},
      ['old', 'inner'],
    );
    expect(plans.map((p) => kinds(p.operations))).toEqual([['trash-local[D1]'], ['create-local-folder[N1]'], ['download[N1]']]);
    expect(localPaths(sim)).toEqual(['thing', 'thing/inner.txt']);
  });

  it('remotely, folder → file', () => {
    const { sim } = expectConverges(
      () => {
        const s = new Sim();
        const id = s.addSynced('thing', 'folder');
        s.addSynced('thing/inner.txt', 'file', 'inner');
        s.remoteDelete(id);
        s.remoteCreate(null, 'thing', 'file', 'now a file');
        return s;
      },
      {},
      ['inner', 'now a file'],
    );
    expect(sim.trees.local.get('thing')?.type).toBe('file');
  });
});

describe('settled trees (docs/sync-rules.md, Terms): no row applies', () => {
  const synced = () => {
    const s = new Sim();
    const dir = s.addSynced('docs', 'folder');
    s.addSynced('docs/a.txt', 'file', 'a');
    s.addSynced('b.txt', 'file', 'b');
    return { s, dir };
  };

  it('both sides exactly as base: settled, and the full table agrees there is nothing to do', () => {
    const { s } = synced();
    expect(settled(s.snapshot())).toBe(true);
    expect(planChanges(s.snapshot())).toEqual({ operations: [], deletions: 0, skipped: [], notes: [] });
    expect(plan(s.snapshot())).toEqual({ operations: [], deletions: 0, skipped: [], notes: [] });
  });

  it.each<[string, (s: Sim, dir: number) => void]>([
    ['a local edit', (s) => s.localWrite('b.txt', 'b, edited')],
    ['a local touch', (s) => s.localTouch('b.txt')],
    ['a local move', (s) => s.localMove('b.txt', 'docs/b.txt')],
    ['a new local file', (s) => s.localWrite('c.txt', 'c')],
    ['a local deletion', (s) => s.localDelete('docs/a.txt')],
    ['a remote rename', (s, dir) => s.remoteMove(dir, null, 'papers')],
    ['a new remote entry', (s, dir) => s.remoteCreate(dir, 'c.txt', 'file', 'c')],
    ['a remote deletion', (s, dir) => s.remoteDelete(dir)],
  ])('%s: not settled', (_name, change) => {
    const { s, dir } = synced();
    change(s, dir);
    expect(settled(s.snapshot())).toBe(false);
  });
});

describe('mass-delete accounting', () => {
  it('deletions counts both sides, a folder with its subtree', () => {
    const sim = new Sim();
    const dir = sim.addSynced('dir', 'folder');
    sim.addSynced('dir/a.txt', 'file', 'a');
    const b = sim.addSynced('b.txt', 'file', 'b');
    sim.remoteDelete(dir);
    sim.localDelete('b.txt');
    expect(plan(sim.snapshot()).deletions).toBe(3);
    expect(b).toBe(3);
  });
});

describe('remote replace (how clients of this service save an edit: a new entry, the old one trashed)', () => {
  const replaced = (localEdit: string | null) => () => {
    const s = new Sim();
    const id = s.addSynced('plan.txt', 'file', 'base');
    if (localEdit !== null) s.localWrite('plan.txt', localEdit);
    s.remoteReplace(id, 'their edit');
    return s;
  };

  it('C2: same locally → download of the new entry, replacing the synced one (no trash, no duplicate)', () => {
    expect(opsOf(replaced(null)())).toEqual([{ kind: 'download', rule: 'C2', remoteId: 2, path: 'plan.txt', replaces: 1 }]);
    const { sim } = expectConverges(replaced(null), {}, ['their edit']);
    expect(localPaths(sim)).toEqual(['plan.txt']);
    expect(sim.localContent.get('plan.txt')).toBe('their edit');
    expect(sim.trash).toEqual([]);
  });

  it('C3: changed locally → conflict with the new entry; the local edit becomes the conflicted copy', () => {
    expect(opsOf(replaced('my edit')())).toEqual([{ kind: 'conflict', rule: 'C3', remoteId: 2, path: 'plan.txt', replaces: 1 }]);
    const { sim } = expectConverges(replaced('my edit'));
    expect(sim.localContent.get('plan.txt')).toBe('their edit');
    expect(localPaths(sim).filter((p) => p.includes('conflicted copy')).map((p) => sim.localContent.get(p))).toEqual(['my edit']);
  });
});

// --- Counterexamples the convergence property found (shrunk), kept as regressions ------------------------------
//
// Each names what was wrong. Every one runs the loop in the planner's order and reversed (the executor runs a
// pass's operations concurrently), and checks the end state and that no content was lost.

describe('regressions found by the convergence property', () => {
  it('D1: a folder trash also covers a child deleted on both sides (no separate forget racing it)', () => {
    const build = () => {
      const s = new Sim();
      s.addSynced('alpha', 'folder');
      s.addSynced('alpha/alpha', 'file', 'init1');
      s.localDelete('alpha/alpha');
      s.remoteDelete(1);
      return s;
    };
    expect(opsOf(build())).toEqual([{ kind: 'trash-local', rule: 'D1', path: 'alpha', remoteId: 1, count: 1 }]);
    expectConverges(build);
  });

  it('D1: a child deleted on both sides under a folder the user moved is forgotten with the folder trash', () => {
    const build = () => {
      const s = new Sim();
      s.addSynced('dir', 'folder');
      s.addSynced('dir/a.txt', 'file', 'a');
      s.addSynced('box', 'folder');
      s.localDelete('dir/a.txt');
      s.localMove('dir', 'box/dir');
      s.remoteDelete(1);
      return s;
    };
    expect(opsOf(build())).toEqual([{ kind: 'trash-local', rule: 'D1', path: 'box/dir', remoteId: 1, count: 1 }]);
    expectConverges(build);
  });

  it('M2 (apply): a local edit survives a remote rename (the move does not record the edited content as synced)', () => {
    const build = () => {
      const s = new Sim();
      s.addSynced('alpha', 'file', 'init0');
      s.localWrite('alpha', 'v0');
      s.remoteMove(1, null, 'beta');
      return s;
    };
    const { sim, plans } = expectConverges(build, {}, ['v0']);
    expect(plans.map((p) => kinds(p.operations))).toEqual([['move-local[M2]'], ['replace-remote[C1]']]);
    expect([...sim.remoteContent.values()]).toEqual(['v0']);
  });

  it('M1 (apply): a remote edit survives a local rename (rename-remote keeps the remote change visible)', () => {
    const { sim } = expectConverges(() => {
      const s = new Sim();
      const id = s.addSynced('alpha.txt', 'file', 'base');
      s.localMove('alpha.txt', 'beta.txt');
      s.remoteEdit(id, 'same'); // same size: only updated_at tells
      s.remoteEdit(id, 'edit');
      return s;
    }, {}, ['edit']);
    expect(sim.localContent.get('beta.txt')).toBe('edit');
  });

  it('M2/M4: a remote rename that only changes the normalisation (NFC → NFD) does not record over a local edit', () => {
    const build = () => {
      const s = new Sim();
      s.addSynced('été', 'file', 'init0');
      s.localWrite('été', 'v0');
      s.remoteMove(1, null, 'e\u0301te\u0301');
      return s;
    };
    expect(opsOf(build())).toEqual([{ kind: 'replace-remote', rule: 'C1', path: 'été', remoteId: 1 }]);
    expectConverges(build, {}, ['v0']);
  });

  it('N2: a new local folder whose name a remote sibling folder has gets a numbered remote name (the service says 422)', () => {
    const { sim } = expectConverges(() => {
      const s = new Sim();
      s.addSynced('beta', 'folder');
      s.localMkdir('alpha');
      s.remoteMove(1, null, 'alpha');
      return s;
    });
    expect(remoteNames(sim)).toEqual(['alpha', 'alpha (2)']);
    expect(localPaths(sim)).toEqual(['alpha', 'alpha (2)']);
  });

  it('N2: ... also when that sibling folder arrives by a move of this pass', () => {
    const build = () => {
      const s = new Sim();
      s.addSynced('alpha', 'folder');
      s.addSynced('alpha/alpha_', 'file', 'init1');
      s.addSynced('alpha/alpha_ (2)', 'folder', '', 'alpha_');
      s.localWrite('alpha/alpha_ (2)/alpha', 'v0');
      s.localMove('alpha/alpha_ (2)', 'alpha_ (2)');
      s.localMkdir('alpha_');
      return s;
    };
    expect(opsOf(build())).toEqual([
      { kind: 'move-remote', rule: 'M1', remoteId: 3, parentId: null, name: 'alpha_', path: 'alpha_ (2)' },
      { kind: 'create-remote-folder', rule: 'N2', path: 'alpha_', parentId: null, name: 'alpha_ (2)' },
      { kind: 'upload', rule: 'N2', path: 'alpha_ (2)/alpha', parentId: 3, name: 'alpha' },
    ]);
    expectConverges(build);
  });

  it('N2: a new folder waits for a same-named remote sibling that this pass renames away', () => {
    const build = () => {
      const s = new Sim();
      s.addSynced('alpha_', 'folder');
      s.localMove('alpha_', 'alpha');
      s.localMkdir('alpha_');
      return s;
    };
    const { sim, plans } = expectConverges(build);
    expect(plans.map((p) => kinds(p.operations))).toEqual([['rename-remote[M1]'], ['create-remote-folder[N2]']]);
    expect(remoteNames(sim)).toEqual(['alpha', 'alpha_']);
  });

  it('D6: a folder deleted locally comes back when the remote moved a folder into it, without waiting on children', () => {
    expectConverges(() => {
      const s = new Sim();
      s.addSynced('alpha', 'folder');
      s.addSynced('beta', 'folder');
      s.addSynced('alpha/alpha', 'folder');
      s.localDelete('alpha');
      s.localWrite('beta/alpha', 'v0');
      s.remoteMove(2, 3, 'alpha');
      return s;
    });
  });

  it('M2: a move into a folder that itself moves this pass waits (it was visited before the folder)', () => {
    const build = () => {
      const s = new Sim();
      const file = s.addSynced('aaa.txt', 'file', 'f');
      const dir = s.addSynced('zzz', 'folder');
      const beta = s.addSynced('beta', 'folder');
      s.remoteMove(file, dir, 'aaa.txt');
      s.remoteMove(dir, beta, 'zzz');
      return s;
    };
    const { plans } = expectConverges(build);
    expect(plans.map((p) => p.operations)).toEqual([
      [{ kind: 'move-local', rule: 'M2', remoteId: 2, from: 'zzz', to: 'beta/zzz' }],
      [{ kind: 'move-local', rule: 'M2', remoteId: 1, from: 'aaa.txt', to: 'beta/zzz/aaa.txt' }],
    ]);
  });

  it('D1: a trash inside a folder that moves this pass waits (items are visited by where they are now)', () => {
    expectConverges(() => {
      const s = new Sim();
      s.addSynced('alpha', 'file', 'init0');
      s.addSynced('alpha (2)', 'folder', '', 'alpha');
      s.addSynced('gamma.txt', 'file', 'init2');
      s.localMove('alpha', 'alpha (2)/alpha');
      s.remoteDelete(1);
      s.remoteMove(2, null, 'beta');
      return s;
    });
  });

  it('C4: a folder renamed while a new one took its path is found by inode; the new one is created', () => {
    const { sim } = expectConverges(() => {
      const s = new Sim();
      s.addSynced('alpha_', 'folder');
      s.addSynced('alpha_/x.txt', 'file', 'x');
      s.localMove('alpha_', 'alpha');
      s.localMkdir('alpha_');
      return s;
    });
    expect(sim.trees.base.get(1)?.path).toBe('alpha');
    expect(remoteNames(sim)).toEqual(['alpha', 'alpha/x.txt', 'alpha_']);
  });

  it('D2: a remote folder trashed with another the remote moved into it is one operation (not two racing ones)', () => {
    const build = () => {
      const s = new Sim();
      s.addSynced('alpha', 'folder');
      s.addSynced('gamma.txt', 'folder');
      s.addSynced('alpha/alpha', 'folder');
      s.addSynced('gamma.txt/alpha', 'folder');
      s.localDelete('alpha');
      s.remoteMove(3, null, 'alpha');
      s.remoteMove(1, 3, 'alpha');
      return s;
    };
    const p = plan(build().snapshot());
    expect(p.operations).toEqual([{ kind: 'trash-remote', rule: 'D2', remoteId: 3, count: 2 }]);
    expect(p.deletions).toBe(2);
    expectConverges(build);
  });

  it('D2: an item moved into an ignored folder left the synced tree: trashed remotely, kept locally', () => {
    const isIgnored = (path: string) => path.split('/').some((part) => part.endsWith('.tmp'));
    const build = () => {
      const s = new Sim();
      s.addSynced('alpha', 'folder');
      s.addSynced('Alpha', 'folder');
      s.localMkdir('notes.tmp');
      s.localMove('Alpha', 'notes.tmp/alpha');
      return s;
    };
    expect(opsOf(build(), { isIgnored })).toEqual([{ kind: 'trash-remote', rule: 'D2', remoteId: 2, count: 1 }]);
    expectConverges(build, { isIgnored });
  });

  it('D2: ... also a folder that holds a synced temp-named file (an ignored name synced from the remote)', () => {
    const isIgnored = (path: string) => path.split('/').some((part) => part.endsWith('.tmp'));
    const build = () => {
      const s = new Sim();
      s.addSynced('alpha', 'folder');
      s.addSynced('alpha/notes.tmp', 'file', 'init1');
      s.localMove('alpha', 'notes.tmp');
      return s;
    };
    expect(opsOf(build(), { isIgnored })).toEqual([{ kind: 'trash-remote', rule: 'D2', remoteId: 1, count: 2 }]);
    expectConverges(build, { isIgnored });
  });

  it('M1: a folder synced under a temp-named folder, moved to a temp name while a file arrives in it, stays where base follows it once its parent is renamed', () => {
    const isIgnored = (path: string) => path.split('/').some((part) => part.endsWith('.tmp'));
    const build = () => {
      const s = new Sim();
      s.addSynced('gamma.txt', 'file', 'init0');
      s.addSynced('alpha', 'folder');
      s.addSynced('beta', 'file', 'init2');
      s.addSynced('alpha/notes.tmp', 'folder');
      s.addSynced('alpha/notes.tmp/alpha', 'folder');
      const moved = s.addSynced('alpha/notes.tmp/alpha/alpha', 'folder');
      s.localMove('alpha/notes.tmp/alpha/alpha', 'alpha/notes.tmp/notes.tmp');
      s.localWrite('alpha/notes.tmp/beta', 'v0');
      s.localMove('alpha/notes.tmp', 'alpha/alpha');
      s.localMkdir('twin.txt');
      s.localMove('alpha/alpha/notes.tmp', 'twin.txt/notes.tmp');
      s.remoteCreate(moved, 'alpha', 'file', 'v1');
      return s;
    };
    // The first pass follows the folder there (the file arriving in it is downloaded there) while its own move waits
    // for its new parent; after the parent's rename its recorded path no longer has a temp name, and the children
    // base records below the new place still say where it is.
    const { sim } = expectConverges(build, { isIgnored });
    expect(sim.remotePath(6)).toBe('twin.txt/notes.tmp');
    expect(sim.localContent.get('twin.txt/notes.tmp/alpha')).toBe('v1');
  });

  it('N3: a folder made at a deleted file\'s place on both sides, the file edited and moved into it on the drive, is matched, and the file follows it', () => {
    const build = () => {
      const s = new Sim();
      s.addSynced('beta', 'file', 'init0');
      s.localDelete('beta');
      s.localMkdir('alpha');
      s.localMove('alpha', 'beta');
      s.remoteEdit(1, 'v0');
      const folder = s.remoteCreate(null, 'beta', 'folder');
      s.remoteMove(1, folder, 'alpha');
      return s;
    };
    // The folder's match does not wait for the file to leave its old place: the file is moving into that folder.
    expect(kinds(opsOf(build()))).toEqual(['record[N3]']);
    const { sim } = expectConverges(build);
    expect(sim.localContent.get('beta/alpha')).toBe('v0');
  });

  it('N5: a file made here at a deleted folder\'s place, a folder made there on the drive (the other spelling) with the deleted folder moved deep inside it, converges', () => {
    const build = () => {
      const s = new Sim();
      s.addSynced("été", 'folder', '', "été");
      s.addSynced("alpha", 'file', 'init1', "alpha");
      s.addSynced("alpha (2)", 'folder', '', "alpha");
      s.addSynced("été/alpha", 'file', 'init3', "alpha");
      s.localDelete("été");
      s.localWrite("été", 'v0');
      s.remoteCreate(null, "été", 'folder'); // 5
      s.remoteCreate(5, "alpha", 'folder'); // 6
      s.remoteEdit(4, 'v1');
      s.remoteMove(1, 6, "alpha");
      return s;
    };
    expect(opsOf(build()).length).toBeGreaterThan(0);
    expectConverges(build);
  });

  it('N3: ... also when the file was renamed on both sides and saved over here first', () => {
    const build = () => {
      const s = new Sim();
      s.addSynced('été', 'file', 'init0');
      s.localMove('été', 'alpha');
      s.remoteMove(1, null, 'alpha');
      s.localMkdir('été');
      s.localWrite('alpha', 'v0', true);
      s.remoteEdit(1, 'v1');
      const folder = s.remoteCreate(null, 'été', 'folder');
      s.remoteMove(1, folder, 'alpha');
      return s;
    };
    expectConverges(build);
  });

  it('C1: an atomic save inside a renamed folder is the same file, edited (not a delete and a new file)', () => {
    const build = () => {
      const s = new Sim();
      s.addSynced('alpha', 'folder');
      s.addSynced('alpha/alpha', 'file', 'init1');
      s.localMove('alpha', 'beta');
      s.localWrite('beta/alpha', 'v1', true);
      return s;
    };
    expect(opsOf(build())).toEqual([
      { kind: 'rename-remote', rule: 'M1', remoteId: 1, name: 'beta', path: 'beta' },
      { kind: 'replace-remote', rule: 'C1', path: 'beta/alpha', remoteId: 2 },
    ]);
    const { sim } = expectConverges(build, {}, ['v1']);
    expect(remoteNames(sim)).toEqual(['beta', 'beta/alpha']);
  });

  it('M3: a local rename and a remote move into the same folder: the remote name wins (not recorded as agreeing)', () => {
    const build = () => {
      const s = new Sim();
      s.addSynced('alpha', 'folder');
      s.addSynced('alpha (2)', 'file', 'init1', 'alpha');
      s.localMove('alpha (2)', 'alpha/beta');
      s.remoteMove(2, 1, 'alpha');
      return s;
    };
    expect(opsOf(build())).toEqual([{ kind: 'move-local', rule: 'M3', remoteId: 2, from: 'alpha/beta', to: 'alpha/alpha' }]);
    expectConverges(build);
  });

  it('M3: a cross move (local B into A, remote A into B) resolves: the remote location wins', () => {
    const build = () => {
      const s = new Sim();
      const a = s.addSynced('Aaa', 'folder');
      const b = s.addSynced('Bbb', 'folder');
      s.addSynced('Bbb/f.txt', 'file', 'f');
      s.localMove('Bbb', 'Aaa/Bbb');
      s.remoteMove(a, b, 'Aaa');
      return s;
    };
    const { sim, plans } = expectConverges(build);
    expect(plans.map((p) => p.operations)).toEqual([
      [{ kind: 'move-local', rule: 'M3', remoteId: 2, from: 'Aaa/Bbb', to: 'Bbb' }],
      [{ kind: 'move-local', rule: 'M2', remoteId: 1, from: 'Aaa', to: 'Bbb/Aaa' }],
    ]);
    expect(localPaths(sim)).toEqual(['Bbb', 'Bbb/Aaa', 'Bbb/f.txt']);
  });

  it('M3: ... through a folder that only followed its parent (not a pending move that could break the cycle)', () => {
    expectConverges(() => {
      const s = new Sim();
      s.addSynced('Aaa', 'folder');
      const c = s.addSynced('Aaa/Ccc', 'folder');
      const b = s.addSynced('Bbb', 'folder');
      s.localMove('Aaa', 'Bbb/Aaa');
      s.remoteMove(b, c, 'Bbb');
      return s;
    });
  });

  it('M3: a cross move two levels deep (each local move waits on the other) is broken by the remote location', () => {
    const { sim } = expectConverges(() => {
      const s = new Sim();
      const a = s.addSynced('Aaa', 'folder');
      s.addSynced('Ggg', 'folder');
      const h = s.addSynced('Ggg/Hhh', 'folder');
      s.addSynced('Ggg/Hhh/f.txt', 'file', 'f');
      s.localMove('Ggg/Hhh', 'Aaa/Hhh');
      s.localMove('Ggg', 'Aaa/Hhh/Ggg');
      s.remoteMove(a, h, 'Aaa');
      return s;
    });
    expect(localPaths(sim)).toEqual(['Ggg', 'Ggg/Hhh', 'Ggg/Hhh/Aaa', 'Ggg/Hhh/f.txt']);
  });

  it('M1: two local moves of one pass never make a remote cycle together', () => {
    const build = () => {
      const s = new Sim();
      const a = s.addSynced('Aaa', 'folder');
      s.addSynced('Bbb', 'folder');
      const c = s.addSynced('Ccc', 'folder');
      s.localMove('Bbb', 'Ccc/Bbb');
      s.localMove('Aaa', 'Ccc/Bbb/Aaa');
      s.remoteMove(c, a, 'Ccc');
      return s;
    };
    expect(kinds(opsOf(build()))).toEqual(['move-local[M3]', 'move-remote[M1]']);
    const { sim } = expectConverges(build);
    expect(localPaths(sim)).toEqual(['Aaa', 'Aaa/Ccc', 'Aaa/Ccc/Bbb']);
  });

  it('M1: the moves of one pass make no remote cycle in any order the executor runs them (a three-way rotation)', () => {
    const build = () => {
      const s = new Sim();
      s.addSynced('Aaa', 'folder');
      s.addSynced('Aaa/Bbb', 'folder');
      s.addSynced('Aaa/Bbb/Ccc', 'folder');
      s.addSynced('Ddd', 'folder');
      s.localMove('Aaa/Bbb/Ccc', 'Ccc');
      s.localMove('Aaa/Bbb', 'Ddd/Bbb');
      s.localMove('Ddd', 'Ccc/Ddd');
      return s;
    };
    const first = opsOf(build());
    for (const order of permutations(first)) {
      const sim = build();
      syncUntilQuiet(sim, {}, (ops, pass) => (pass === 0 ? order : ops));
      expect(convergenceProblems(sim)).toEqual([]);
      expect(remoteNames(sim)).toEqual(['Aaa', 'Ccc', 'Ccc/Ddd', 'Ccc/Ddd/Bbb']);
    }
  });

  it('apply: a rename of a file does not carry along another item now recorded at its old path', () => {
    expectConverges(() => {
      const s = new Sim();
      s.addSynced('gamma (2).txt', 'file', 'init0');
      s.addSynced('été', 'file', 'init1');
      s.addSynced('alpha (2)', 'folder', '', 'alpha');
      s.localMove('été', 'alpha (2)/alpha');
      s.localWrite('gamma (2).txt', 'v0', true);
      s.remoteMove(1, null, 'été');
      return s;
    });
  });

  it('a folder renamed onto the path of a file the remote replaced is still found by inode', () => {
    expectConverges(() => {
      const s = new Sim();
      s.addSynced('alpha_', 'file', 'init0');
      s.addSynced('gamma.txt', 'folder');
      s.localMove('alpha_', 'gamma.txt/alpha');
      s.localMove('gamma.txt', 'alpha_');
      s.remoteReplace(1, 'v0');
      return s;
    });
  });

  it('a file at its recorded path under a folder that was deleted and replaced by another is not that synced file', () => {
    const build = () => {
      const s = new Sim();
      s.addSynced('gamma.txt', 'folder');
      s.addSynced('alpha', 'folder');
      s.addSynced('alpha/alpha', 'file', 'init2');
      s.addSynced('beta', 'folder');
      s.localDelete('alpha');
      s.localWrite('beta/alpha', 'v0');
      s.localMove('gamma.txt', 'beta/gamma.txt');
      s.localMove('beta', 'alpha');
      return s;
    };
    expect(opsOf(build()).filter((op) => op.kind === 'replace-remote')).toEqual([]);
    expectConverges(build, {}, ['v0', 'init2']);
  });

  it('N5: a local folder moved aside by a conflict: operations on what is inside it wait', () => {
    const build = () => {
      const s = new Sim();
      const f = s.addSynced('f.txt', 'file', 'f');
      s.localMkdir('thing');
      s.localMove('f.txt', 'thing/f.txt');
      s.remoteDelete(f);
      s.remoteCreate(null, 'thing', 'file', 'remote thing');
      return s;
    };
    expect(opsOf(build())).toEqual([{ kind: 'conflict', rule: 'N5', remoteId: 2, path: 'thing' }]);
    expectConverges(build);
  });

  it('a file moved into a new folder that took its own path (file → folder of the same name) converges', () => {
    expectConverges(() => {
      const s = new Sim();
      s.addSynced('alpha_', 'file', 'init0');
      s.localMove('alpha_', 'gamma.txt');
      s.localMkdir('alpha_');
      s.localMove('gamma.txt', 'alpha_/alpha');
      return s;
    });
  });

  it('M1: two folders swap names here, and an item moved from one into the other keeps its path: it moved, it was not deleted and made anew', () => {
    const build = () => {
      const s = new Sim();
      s.addSynced('alpha', 'folder');
      s.addSynced('alpha/x.txt', 'file', 'x');
      s.addSynced('bravo', 'folder');
      s.localMove('alpha/x.txt', 'bravo/x.txt');
      s.localMove('alpha', 'charlie');
      s.localMove('bravo', 'alpha');
      return s;
    };
    expect(kinds(opsOf(build()))).toEqual(['move-remote[M1]', 'rename-remote[M1]', 'rename-remote[M1]']);
    const { sim } = expectConverges(build);
    expect(sim.trash).toEqual([]);
    expect(sim.remotePath(2)).toBe('alpha/x.txt');
    expect(sim.trees.remote.get(2)?.parentId).toBe(3);
  });

  it('M6: on a volume that folds case, a folder moved to a temp name (deleted) while another takes its name and keeps its child (seed 297467673)', () => {
    const isIgnored = (path: string) => path.split('/').some((part) => part.endsWith('.tmp'));
    const build = () => {
      const sim = new Sim({ caseInsensitive: true, birthTimes: false });
      sim.addSynced('alpha', 'file', 'init0', 'alpha');
      sim.addSynced('Alpha (2)', 'file', 'init1', 'Alpha');
      sim.addSynced('été', 'folder', '', 'été');
      sim.addSynced('été (2)', 'file', 'init3', 'été');
      sim.addSynced('alpha (3)', 'folder', '', 'alpha');
      sim.addSynced('été/gamma.txt', 'folder', '', 'gamma.txt');
      sim.addSynced('été/gamma.txt/beta', 'file', 'init6', 'beta');
      sim.addSynced('été/alpha', 'file', 'init7', 'alpha');
      sim.localMove('été/gamma.txt', 'alpha (3)/gamma.txt');
      sim.localMove('été', 'gamma (2).txt');
      sim.localMove('alpha (3)', 'été');
      sim.localMove('Alpha (2)', 'gamma.txt');
      sim.localDelete('gamma (2).txt/alpha');
      sim.localMove('été/gamma.txt/beta', 'été/gamma.txt/alpha');
      sim.localMove('gamma (2).txt', 'notes.tmp');
      return sim;
    };
    const { sim } = expectConverges(build, { caseInsensitive: true, isIgnored }, ['init0', 'init1', 'init3', 'init6']);
    expect(sim.trash.map((t) => t.content)).not.toContain('init6');
  });
});
