/**
 * Selective sync's rows (docs/sync-rules.md, "Excluded folders"), one describe per row, then the guard and the
 * selection's own questions. Built with the simulator, planned by the selective planner (`planSelected`), and run to
 * the end in both orders: nothing is lost, and the trees end as the selection says.
 */
import { describe, expect, it } from 'vitest';
import { entriesOutside, excludedTakenBy, LEFT_OUT_PLACE, newTopFolders, planSelected, type Selection } from '../../main/sync/selective.js';
import type { Operation, RemoteId } from '../../main/sync/types.js';
import { Sim, contentsKept, convergenceProblems, syncUntilQuiet } from './sim.js';

const excluding = (...ids: RemoteId[]): Selection => ({ excluded: new Set(ids) });
const opsOf = (sim: Sim, selection: Selection): Operation[] => planSelected(sim.snapshot(), selection).operations;
const kinds = (ops: Operation[]) => ops.map((op) => `${op.kind}[${op.rule}]`).sort();

/** Runs to the end in both orders; every content is still somewhere, and the trees are as the selection says. */
function expectSettles(build: () => { sim: Sim; selection: Selection }): Sim {
  let first: Sim | undefined;
  for (const order of ['forward', 'reverse'] as const) {
    const { sim, selection } = build();
    const wanted = [...new Set([...sim.localContent.values(), ...sim.remoteContent.values()])];
    syncUntilQuiet(sim, { selection: () => selection }, order);
    expect(convergenceProblems(sim, () => false, selection), `${order}:\n${sim.log.join('\n')}\n${sim.dump()}`).toEqual([]);
    const kept = contentsKept(sim);
    expect(wanted.filter((c) => !kept.has(c)), `${order}: content lost`).toEqual([]);
    first ??= sim;
  }
  return first!;
}

/** Photos/ with two files and a subfolder, and Docs/ with one: synced on both sides. */
function photosAndDocs() {
  const sim = new Sim();
  const photos = sim.addSynced('Photos', 'folder');
  const a = sim.addSynced('Photos/a.jpg', 'file', 'aaaa');
  sim.addSynced('Photos/2019', 'folder');
  sim.addSynced('Photos/2019/b.jpg', 'file', 'bbbbbb');
  const docs = sim.addSynced('Docs', 'folder');
  const note = sim.addSynced('Docs/note.txt', 'file', 'note');
  return { sim, photos, a, docs, note };
}

describe('E1: an excluded folder whose local copy is as synced → drop-local', () => {
  it('removes the synced items here (not to the OS trash) and forgets them; the drive keeps everything', () => {
    const { sim, photos } = photosAndDocs();
    const selection = excluding(photos);
    expect(opsOf(sim, selection)).toEqual([{ kind: 'drop-local', rule: 'E1', path: 'Photos', remoteId: photos, count: 4, bytes: 10 }]);
    syncUntilQuiet(sim, { selection: () => selection });
    expect([...sim.trees.local.keys()].sort()).toEqual(['Docs', 'Docs/note.txt']);
    expect(sim.trash).toEqual([]);
    expect([...sim.remoteContent.values()].sort()).toEqual(['aaaa', 'bbbbbb', 'note']);
    expect([...sim.trees.base.values()].map((b) => b.path).sort()).toEqual(['Docs', 'Docs/note.txt']);
    // Settled: nothing more to do, and nothing inside is downloaded again.
    expect(planSelected(sim.snapshot(), selection).quiet).toBe(true);
  });

  it('a change on the drive inside is not downloaded; an item gone from the drive goes to the OS trash first, as D1', () => {
    const { sim, photos, a } = photosAndDocs();
    sim.remoteReplace(a, 'edited elsewhere');
    sim.remoteCreate(photos, 'new.jpg', 'file', 'new');
    // The old entry is in the drive's trash only: its copy here goes to the OS trash (D1), then the rest (E1).
    expect(kinds(opsOf(sim, excluding(photos)))).toEqual(['trash-local[D1]']);
    sim.apply(opsOf(sim, excluding(photos))[0]!);
    expect(kinds(opsOf(sim, excluding(photos)))).toEqual(['drop-local[E1]']);
    expectSettles(() => {
      const built = photosAndDocs();
      built.sim.remoteReplace(built.a, 'edited elsewhere');
      built.sim.remoteCreate(built.photos, 'new.jpg', 'file', 'new');
      return { sim: built.sim, selection: excluding(built.photos) };
    });
  });

  it('waits while an item inside moves out on the drive: that one arrives where it went, then the rest goes', () => {
    const build = () => {
      const built = photosAndDocs();
      built.sim.remoteMove(built.a, built.docs, 'a.jpg');
      return { sim: built.sim, selection: excluding(built.photos) };
    };
    const { sim, selection } = build();
    expect(kinds(opsOf(sim, selection))).toEqual(['move-local[M2]']);
    const done = expectSettles(build);
    expect(done.trees.local.has('Docs/a.jpg')).toBe(true);
    expect(done.trees.local.has('Photos')).toBe(false);
    expect(done.localContent.get('Docs/a.jpg')).toBe('aaaa');
  });

  it('an entry synced elsewhere that is moved on the drive into an excluded folder leaves this computer', () => {
    const build = () => {
      const sim = new Sim();
      const photos = sim.addSynced('Photos', 'folder');
      const note = sim.addSynced('note.txt', 'file', 'note');
      sim.apply({ kind: 'drop-local', rule: 'E1', path: 'Photos', remoteId: photos, count: 1, bytes: 0 });
      sim.remoteMove(note, photos, 'note.txt');
      return { sim, selection: excluding(photos) };
    };
    const { sim, selection } = build();
    expect(opsOf(sim, selection)).toEqual([{ kind: 'drop-local', rule: 'E1', path: 'note.txt', remoteId: expect.any(Number), count: 1, bytes: 4 }]);
    const done = expectSettles(build);
    expect(done.trees.local.size).toBe(0);
  });
});

describe('E2: an excluded folder with changes made here → they are synced first, then E1', () => {
  it('an edit, a new file and a rename inside go to the drive; nothing new on the drive comes down; then the copy goes', () => {
    const build = () => {
      const built = photosAndDocs();
      built.sim.localWrite('Photos/a.jpg', 'edited here');
      built.sim.localWrite('Photos/2019/new.jpg', 'made here');
      built.sim.localMove('Photos/2019/b.jpg', 'Photos/2019/b2.jpg');
      built.sim.remoteCreate(built.photos, 'theirs.jpg', 'file', 'theirs');
      return { ...built, selection: excluding(built.photos) };
    };
    const { sim, selection } = build();
    const first = planSelected(sim.snapshot(), selection);
    expect(kinds(first.operations)).toEqual(['rename-remote[M1]', 'replace-remote[C1]', 'upload[N2]']);
    expect(first.skipped).toEqual([{ path: 'Photos', reason: expect.stringMatching(/^excluded: leaves this computer once what changed here is on the drive/), fails: false }]);
    const done = expectSettles(build);
    expect([...done.trees.local.keys()].sort()).toEqual(['Docs', 'Docs/note.txt']);
    const onDrive = [...done.trees.remote.values()].map((r) => done.remotePath(r.id)).sort();
    expect(onDrive).toEqual(expect.arrayContaining(['Photos/a.jpg', 'Photos/2019/b2.jpg', 'Photos/2019/new.jpg', 'Photos/theirs.jpg']));
    expect(done.log.some((line) => line.includes('theirs'))).toBe(false);
  });

  it('including the folder again before it went keeps every id: nothing is downloaded or uploaded anew', () => {
    const { sim, photos } = photosAndDocs();
    sim.localWrite('Photos/a.jpg', 'edited here');
    const ids = [...sim.trees.base.keys()].sort();
    const plan = planSelected(sim.snapshot(), excluding(photos));
    expect(kinds(plan.operations)).toEqual(['replace-remote[C1]']);
    // Included again: the table alone plans, as for any synced folder.
    const included = planSelected(sim.snapshot(), excluding());
    expect(kinds(included.operations)).toEqual(['replace-remote[C1]']);
    expect([...sim.trees.base.keys()].sort()).toEqual(ids);
  });
});

describe('E3: a local folder at the place of an excluded folder that is not here → left out', () => {
  const build = () => {
    const sim = new Sim();
    const photos = sim.remoteCreate(null, 'Photos', 'folder');
    sim.remoteCreate(photos, 'a.jpg', 'file', 'theirs');
    sim.localMkdir('Photos');
    sim.localWrite('Photos/mine.jpg', 'mine');
    sim.localWrite('other.txt', 'other');
    return { sim, photos, selection: excluding(photos) };
  };

  it('is never merged, uploaded or deleted; the user is told what to do', () => {
    const { sim, selection } = build();
    const plan = planSelected(sim.snapshot(), selection);
    expect(kinds(plan.operations)).toEqual(['upload[N2]']);
    expect(plan.operations[0]).toMatchObject({ path: 'other.txt' });
    expect(plan.skipped).toEqual([{ path: 'Photos', reason: LEFT_OUT_PLACE('Photos'), fails: false }]);
    const done = expectSettles(() => build());
    expect(done.localContent.get('Photos/mine.jpg')).toBe('mine');
    expect([...done.remoteContent.values()].sort()).toEqual(['other', 'theirs']);
  });

  it('follows the excluded folder when it is renamed on the drive: the old name is the local folder\'s again', () => {
    const { sim, photos, selection } = build();
    sim.remoteMove(photos, null, 'Pictures');
    const plan = planSelected(sim.snapshot(), selection);
    // Photos/ here is no longer at an excluded folder's place: it is a new folder, uploaded with what it holds.
    expect(kinds(plan.operations)).toEqual(['create-remote-folder[N2]', 'upload[N2]']);
    sim.localMkdir('Pictures');
    expect(planSelected(sim.snapshot(), selection).skipped).toEqual([{ path: 'Pictures', reason: LEFT_OUT_PLACE('Pictures'), fails: false }]);
  });

  it('an excluded folder never synced here is not downloaded, nor anything in it', () => {
    const sim = new Sim();
    const photos = sim.remoteCreate(null, 'Photos', 'folder');
    const inner = sim.remoteCreate(photos, 'Inner', 'folder');
    sim.remoteCreate(inner, 'a.jpg', 'file', 'theirs');
    sim.remoteCreate(null, 'top.txt', 'file', 'top');
    const selection = excluding(photos);
    expect(kinds(opsOf(sim, selection))).toEqual(['download[N1]']);
    syncUntilQuiet(sim, { selection: () => selection });
    expect([...sim.trees.local.keys()]).toEqual(['top.txt']);
    expect(planSelected(sim.snapshot(), selection).quiet).toBe(true);
    // Included: it arrives.
    syncUntilQuiet(sim, { selection: () => excluding() });
    expect([...sim.trees.local.keys()].sort()).toEqual(['Photos', 'Photos/Inner', 'Photos/Inner/a.jpg', 'top.txt']);
  });
});

describe('E4: changed here, and moved on the drive into an excluded folder not here → the change goes up as new', () => {
  it('the version here is uploaded where it is (D4); the drive keeps its entry in the excluded folder', () => {
    const sim = new Sim();
    const photos = sim.addSynced('Photos', 'folder');
    const note = sim.addSynced('note.txt', 'file', 'note');
    sim.apply({ kind: 'drop-local', rule: 'E1', path: 'Photos', remoteId: photos, count: 1, bytes: 0 });
    sim.remoteMove(note, photos, 'note.txt');
    sim.localWrite('note.txt', 'edited here');
    const plan = planSelected(sim.snapshot(), excluding(photos));
    expect(kinds(plan.operations)).toEqual(['forget[D4]']);
    expect(plan.skipped).toEqual([{ path: 'note.txt', reason: expect.stringContaining('was moved on the drive into Photos, which this computer leaves out'), fails: false }]);
    syncUntilQuiet(sim, { selection: () => excluding(photos) });
    expect(sim.localContent.get('note.txt')).toBe('edited here');
    expect([...sim.trees.remote.values()].map((r) => sim.remotePath(r.id)).sort()).toEqual(['Photos', 'Photos/note.txt', 'note.txt']);
    expect(sim.remoteContent.get(note)).toBe('note');
    expect(convergenceProblems(sim, () => false, excluding(photos))).toEqual([]);
  });
});

describe('the guards of selective sync', () => {
  it('a folder deleted here that holds an excluded folder: its trash would take what this computer cannot see', () => {
    const sim = new Sim();
    const work = sim.addSynced('Work', 'folder');
    sim.addSynced('Work/a.txt', 'file', 'a');
    const old = sim.remoteCreate(work, 'Old', 'folder');
    sim.remoteCreate(old, 'big.bin', 'file', '0123456789');
    sim.localDelete('Work');
    const selection = excluding(old);
    const plan = planSelected(sim.snapshot(), selection);
    expect(kinds(plan.operations)).toEqual(['trash-remote[D2]']);
    expect(excludedTakenBy(sim.trees.remote, plan.outside, new Set([work]))).toEqual({ items: 2, bytes: 10 });
    // The excluded folder itself is in the trash's own count.
    expect(plan.operations[0]).toMatchObject({ count: 3 });
    expect(excludedTakenBy(sim.trees.remote, plan.outside, new Set([work]), selection.excluded)).toEqual({ items: 1, bytes: 10 });
    expect(excludedTakenBy(sim.trees.remote, plan.outside, new Set([old + 100]))).toEqual({ items: 0, bytes: 0 });
  });

  it('the entries inside excluded folders, at any depth, and no other', () => {
    const sim = new Sim();
    const a = sim.remoteCreate(null, 'A', 'folder');
    const b = sim.remoteCreate(a, 'B', 'folder');
    const c = sim.remoteCreate(b, 'c.txt', 'file', 'c');
    const d = sim.remoteCreate(null, 'd.txt', 'file', 'd');
    expect([...entriesOutside(sim.trees.remote, new Set([b]))].sort()).toEqual([b, c].sort());
    expect(entriesOutside(sim.trees.remote, new Set([a])).has(d)).toBe(false);
    expect(entriesOutside(sim.trees.remote, new Set()).size).toBe(0);
  });

  it('new top-level folders made elsewhere are found for a folder set to leave them out, once synced', () => {
    const { sim } = photosAndDocs();
    const music = sim.remoteCreate(null, 'Music', 'folder');
    const inner = sim.remoteCreate(music, 'Inner', 'folder');
    sim.remoteCreate(null, 'loose.txt', 'file', 'x');
    expect(newTopFolders(sim.snapshot(), { excluded: new Set(), newFolders: 'exclude' }).map((r) => r.id)).toEqual([music]);
    expect(newTopFolders(sim.snapshot(), { excluded: new Set(), newFolders: 'sync' })).toEqual([]);
    expect(newTopFolders(sim.snapshot(), { excluded: new Set([music]), newFolders: 'exclude' })).toEqual([]);
    expect(inner).toBeGreaterThan(music);
    // A folder made here at the same moment with its name is matched with it (N3), not left out.
    sim.localMkdir('Music');
    expect(newTopFolders(sim.snapshot(), { excluded: new Set(), newFolders: 'exclude' })).toEqual([]);
  });
});
