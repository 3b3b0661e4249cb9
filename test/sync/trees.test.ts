/**
 * The compact tree stores behave as Maps: any sequence of sets and deletes leaves them answering exactly what a
 * Map given the same sequence answers, item for item, in the same order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BaseTree, LocalTree, remoteAsSynced, RemoteTree, RemoteView } from '../../main/sync/trees/trees.js';
import { parentsIn, remoteParentsIn, syncedRowsOf } from '../../main/sync/trees/queries.js';
import type { BaseItem, LocalItem, RemoteItem } from '../../main/sync/model/types.js';

const stampArb = fc.oneof(
  // The service's own format, with 0 to 6 fraction digits (leading zeros included).
  fc
    .tuple(fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }), fc.nat({ max: 6 }), fc.nat({ max: 999_999 }))
    .map(([date, digits, fraction]) => {
      const whole = date.toISOString().slice(0, 19);
      return digits === 0 ? `${whole}Z` : `${whole}.${String(fraction % 10 ** digits).padStart(digits, '0')}Z`;
    }),
  // Anything else a server may send, kept as text.
  fc.constantFrom('', '2026-11-22 09:01:58', '2026-11-22T09:01:58.1234567Z', '2026-11-22T09:01:58+00:00', '0001-01-01T00:00:00Z', 'later'),
  fc.string(),
);
const hashArb = fc.oneof(
  fc.constant(null),
  fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString('hex')),
  fc.constantFrom('h1', 'ABCDEF', 'x'.repeat(64)),
);
const pathArb = fc.constantFrom('a', 'a/b', 'a/b/c.txt', 'été', 'x/y (2).txt', 'deep/er/still/name.md', 'n');
const numArb = fc.oneof(fc.nat(), fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 2 ** 50 }), fc.constant(2 ** 53 - 1));
const typeArb = fc.constantFrom<'file' | 'folder'>('file', 'folder');
const idArb = fc.nat({ max: 40 });
/** A birth time is kept only when known (above 0); an unknown one reads back missing. */
const birthArb = fc.option(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true, min: 1, max: 2 ** 50 }), fc.constant(1_795_450_029_619.6077)), { nil: undefined });
const withBirth = <T extends object>({ birthtimeMs, ...rest }: T & { birthtimeMs: number | undefined }) =>
  (birthtimeMs === undefined ? rest : { ...rest, birthtimeMs }) as T;

const baseArb: fc.Arbitrary<BaseItem> = fc.record({
  remoteId: fc.constant(0),
  parentId: fc.option(fc.nat({ max: 40 }), { nil: null }),
  remoteName: fc.oneof(fc.constant(''), fc.string(), pathArb),
  path: pathArb,
  type: typeArb,
  inode: numArb,
  size: numArb,
  mtimeMs: numArb,
  birthtimeMs: birthArb,
  hash: hashArb,
  remoteSize: numArb,
  remoteUpdatedAt: stampArb,
  madeHere: fc.boolean(),
}).map(({ madeHere, ...b }) => withBirth<BaseItem>(madeHere ? { ...b, madeHere: true } : b));
const localArb: fc.Arbitrary<LocalItem> = fc
  .record({ path: pathArb, type: typeArb, inode: numArb, size: numArb, mtimeMs: numArb, birthtimeMs: birthArb, hash: fc.option(hashArb.filter((h) => h !== null), { nil: undefined }) })
  .map(({ hash, ...rest }) => withBirth<LocalItem>(hash === undefined ? rest : { ...rest, hash }));
const remoteArb: fc.Arbitrary<RemoteItem> = fc
  .record({
    id: fc.constant(0),
    parentId: fc.option(fc.nat({ max: 40 }), { nil: null }),
    name: fc.string(),
    type: typeArb,
    size: numArb,
    updatedAt: stampArb,
    createdAt: fc.option(stampArb, { nil: undefined }),
  })
  .map(({ createdAt, ...rest }) => (createdAt === undefined ? rest : { ...rest, createdAt }));

type Step<K, V> = { set: [K, V] } | { delete: K };

function sameAsMap<K, V>(store: Map<K, V>, steps: Array<Step<K, V>>, keyed: (key: K, value: V) => V): void {
  const map = new Map<K, V>();
  for (const step of steps) {
    if ('set' in step) {
      const [key, value] = step.set;
      map.set(key, keyed(key, value));
      store.set(key, keyed(key, value));
    } else expect(store.delete(step.delete)).toBe(map.delete(step.delete));
    expect(store.size).toBe(map.size);
  }
  expect([...store.entries()]).toEqual([...map.entries()]);
  expect([...store.keys()]).toEqual([...map.keys()]);
  expect([...store.values()]).toEqual([...map.values()]);
  // Counted from the parent column alone, as every poll asks.
  if (store instanceof BaseTree || store instanceof RemoteTree) {
    expect(store.rootChildren()).toBe([...map.values()].filter((v) => (v as { parentId: unknown }).parentId === null).length);
  }
  if (store instanceof RemoteTree) {
    expect([...remoteParentsIn(store)]).toEqual([...map.values()].map((v) => [(v as RemoteItem).id, (v as RemoteItem).parentId]));
  }
  for (const key of map.keys()) {
    expect(store.has(key)).toBe(true);
    expect(store.get(key)).toEqual(map.get(key));
  }
}

const stepsArb = <K, V>(key: fc.Arbitrary<K>, value: fc.Arbitrary<V>): fc.Arbitrary<Array<Step<K, V>>> =>
  fc.array(fc.oneof(fc.record({ set: fc.tuple(key, value) }), fc.record({ delete: key })), { maxLength: 120 });

describe('compact tree stores', () => {
  it('the base store answers as a Map would, and drains exactly the rows touched', () => {
    fc.assert(
      fc.property(stepsArb(idArb, baseArb), (steps) => {
        const store = new BaseTree();
        sameAsMap(store, steps, (id, b) => ({ ...b, remoteId: id }));
        const touched = new Set(steps.map((s) => ('set' in s ? s.set[0] : s.delete)));
        const { upserts, deletes } = store.drain();
        expect(new Set([...upserts.map((b) => b.remoteId), ...deletes])).toEqual(touched);
        for (const id of deletes) expect(store.has(id)).toBe(false);
        expect(store.drain()).toEqual({ upserts: [], deletes: [] });
      }),
      { numRuns: 300 },
    );
  });

  /** A base store after the steps, each item keyed by its id. */
  const baseAfter = (steps: Array<Step<number, BaseItem>>): BaseTree => {
    const store = new BaseTree();
    for (const step of steps) {
      if ('set' in step) store.set(step.set[0], { ...step.set[1], remoteId: step.set[0] });
      else store.delete(step.delete);
    }
    return store;
  };

  it('the base store names each item\'s parent from its column alone, as its items do', () => {
    fc.assert(
      fc.property(stepsArb(idArb, baseArb), (steps) => {
        const store = baseAfter(steps);
        expect([...parentsIn(store)]).toEqual([...store.values()].map((b) => [b.remoteId, b.parentId]));
      }),
      { numRuns: 100 },
    );
  });

  it('local and remote trees made from base\'s columns hold what base\'s items say, time stamps exactly', () => {
    fc.assert(
      fc.property(stepsArb(idArb, baseArb), (steps) => {
        const store = baseAfter(steps);
        const items = [...store.values()];
        const local = new Map<string, LocalItem>();
        for (const b of items) local.set(b.path, { path: b.path, type: b.type, inode: b.inode, size: b.size, mtimeMs: b.mtimeMs, ...(b.birthtimeMs !== undefined ? { birthtimeMs: b.birthtimeMs } : {}) });
        expect(new Map(LocalTree.fromBase(store))).toEqual(local);
        const remote = new Map(items.map((b) => [b.remoteId, { id: b.remoteId, parentId: b.parentId, name: b.remoteName, type: b.type, size: b.remoteSize, updatedAt: b.remoteUpdatedAt }]));
        expect(new Map(RemoteView.ofBase(store))).toEqual(remote);
      }),
      { numRuns: 200 },
    );
  });

  it('reads from the columns whether the local and remote trees hold each synced item as synced, as its items tell', () => {
    const field = fc.constantFrom('type', 'inode', 'size', 'mtimeMs', 'birthtimeMs', 'parentId', 'name', 'updatedAt', 'none');
    const seen = new Set<string>();
    fc.assert(
      fc.property(stepsArb(idArb, baseArb), fc.array(fc.tuple(fc.nat(), field, localArb, remoteArb)), (steps, changes) => {
        const base = baseAfter(steps);
        const items = [...base.values()];
        fc.pre(items.length > 0);
        const local = LocalTree.fromBase(base);
        const remote = RemoteView.ofBase(base);
        // Each change gives one synced item one field of another item, here or on the drive.
        for (const [n, key, l, r] of changes) {
          const b = items[n % items.length]!;
          const here = local.get(b.path);
          const there = remote.get(b.remoteId)!;
          if (key === 'parentId' || key === 'name' || key === 'updatedAt') remote.set(b.remoteId, { ...there, [key]: r[key] });
          else if (key === 'none') local.delete(b.path);
          else if (here) local.set(b.path, key === 'birthtimeMs' ? withBirth<LocalItem>({ ...here, birthtimeMs: l.birthtimeMs }) : { ...here, [key]: l[key] });
          if (key === 'size') remote.set(b.remoteId, { ...remote.get(b.remoteId)!, size: r.size });
        }
        const plain = [...syncedRowsOf(new Map(base), new Map(local), new Map(remote))];
        expect(Array.from(base.syncedRows(local, remote), (row) => ({ ...row }))).toEqual(plain);
        for (const row of plain) seen.add(`${row.localSame}/${row.remoteSame}`);
      }),
      { numRuns: 300 },
    );
    // Items held as synced on both sides, and changed on either, were all compared.
    expect([...seen].sort()).toEqual(['false/false', 'false/true', 'true/false', 'true/true']);
  });

  it('stamps that share a slot of the formatting cache (1,024 s apart) each read back as written', () => {
    const store = new RemoteTree();
    const stampAt = (seconds: number, fraction: string) => `${new Date(seconds * 1000).toISOString().slice(0, 19)}${fraction}Z`;
    const start = Date.parse('2026-11-22T09:01:58Z') / 1000;
    const written = new Map<number, string>();
    for (let i = 0; i < 200; i++) {
      // Alternating between seconds that fall in one slot, with fractions of every length and none.
      const stamp = stampAt(start + (i % 4) * 1024 + Math.floor(i / 50), ['', '.5', '.961617', '.000001'][i % 4]!);
      written.set(i, stamp);
      store.set(i, { id: i, parentId: null, name: `n${i}`, type: 'file', size: 1, updatedAt: stamp });
    }
    for (let round = 0; round < 2; round++) for (const [id, stamp] of written) expect(store.get(id)!.updatedAt).toBe(stamp);
  });

  it('the local store answers as a Map would', () => {
    fc.assert(
      fc.property(stepsArb(pathArb, localArb), (steps) => sameAsMap(new LocalTree(), steps, (path, item) => ({ ...item, path }))),
      { numRuns: 300 },
    );
  });

  it('the remote store answers as a Map would', () => {
    fc.assert(
      fc.property(stepsArb(idArb, remoteArb), (steps) => sameAsMap(new RemoteTree(), steps, (id, item) => ({ ...item, id }))),
      { numRuns: 300 },
    );
  });

  /** A base row as a listing would name its entry. */
  const listed = (b: BaseItem): RemoteItem => ({ id: b.remoteId, parentId: b.parentId, name: b.remoteName, type: b.type, size: b.remoteSize, updatedAt: b.remoteUpdatedAt });
  type ViewStep = { base: Step<number, BaseItem> } | { view: Step<number, RemoteItem> } | { copy: number } | { record: number };
  const viewStepsArb: fc.Arbitrary<ViewStep[]> = fc.array(
    fc.oneof(
      stepsArb(idArb, baseArb).map((steps) => steps.map((base) => ({ base }))),
      stepsArb(idArb, remoteArb).map((steps) => steps.map((view) => ({ view }))),
      fc.array(idArb, { maxLength: 20 }).map((ids) => ids.map((copy) => ({ copy }))),
      fc.array(idArb, { maxLength: 20 }).map((ids) => ids.map((record) => ({ record }))),
    ),
    { maxLength: 6 },
  ).map((groups) => groups.flat());

  it('a remote tree over base answers as a Map would, whatever base does meanwhile, and holds apart only what differs from base', () => {
    fc.assert(
      fc.property(stepsArb(idArb, baseArb), fc.boolean(), viewStepsArb, (start, ofBase, steps) => {
        const base = baseAfter(start);
        const view = ofBase ? RemoteView.ofBase(base) : new RemoteView(base);
        const model = new Map<number, RemoteItem>(ofBase ? [...base.values()].map((b) => [b.remoteId, listed(b)]) : []);
        expect(view.apart).toBe(0);
        for (const step of steps) {
          if ('base' in step) {
            if ('set' in step.base) base.set(step.base.set[0], { ...step.base.set[1], remoteId: step.base.set[0] });
            else base.delete(step.base.delete);
          } else if ('view' in step) {
            if ('set' in step.view) {
              const item = { ...step.view.set[1], id: step.view.set[0] };
              view.set(item.id, item);
              model.set(item.id, item);
            } else expect(view.delete(step.view.delete)).toBe(model.delete(step.view.delete));
          } else if ('record' in step) {
            // The executor records an entry as the tree names it (an operation done): the row stands for it again.
            const r = model.get(step.record);
            if (r === undefined) continue;
            const b = base.get(r.id);
            base.set(r.id, { remoteId: r.id, parentId: r.parentId, remoteName: r.name, path: b?.path ?? `p${r.id}`, type: r.type, inode: 1, size: r.size, mtimeMs: 1, hash: null, remoteSize: r.size, remoteUpdatedAt: r.updatedAt });
          } else {
            // The listing names an entry just as base records it: a flag on the row.
            const b = base.get(step.copy);
            if (b === undefined) continue;
            view.set(b.remoteId, listed(b));
            model.set(b.remoteId, listed(b));
          }
          expect(view.size).toBe(model.size);
        }
        const byId = (entries: Iterable<[number, RemoteItem]>) => [...entries].sort((a, b) => a[0] - b[0]);
        expect(byId(view.entries())).toEqual(byId(model.entries()));
        expect([...view.keys()].sort((a, b) => a - b)).toEqual([...model.keys()].sort((a, b) => a - b));
        expect(view.rootChildren()).toBe([...model.values()].filter((r) => r.parentId === null).length);
        expect([...remoteParentsIn(view)].sort((a, b) => a[0] - b[0])).toEqual([...model.values()].map((r) => [r.id, r.parentId]).sort((a, b) => a[0]! - b[0]!));
        for (let id = 0; id <= 40; id++) {
          expect(view.has(id)).toBe(model.has(id));
          expect(view.get(id)).toEqual(model.get(id));
        }
        // What it holds apart from base is exactly what base does not record as it is.
        const recorded = (r: RemoteItem) => r.createdAt === undefined && base.has(r.id) && JSON.stringify(listed(base.get(r.id)!)) === JSON.stringify(r);
        expect(view.apart).toBe([...model.values()].filter((r) => !recorded(r)).length);
        // Whether it holds each synced entry as synced, as syncedRows reads it from the columns.
        const local = LocalTree.fromBase(base);
        for (const row of syncedRowsOf(base, local, view)) expect(row.remoteSame).toBe(remoteAsSynced(base.get(row.id)!, model.get(row.id)));
      }),
      { numRuns: 500 },
    );
  });

  it('a remote tree over base that nobody holds any more is no longer told of base\'s changes', () => {
    const base = new BaseTree();
    const row = (id: number): BaseItem => ({ remoteId: id, parentId: null, remoteName: `n${id}`, path: `n${id}`, type: 'file', inode: id, size: 1, mtimeMs: 1, hash: null, remoteSize: 1, remoteUpdatedAt: '2026-01-01T00:00:00Z' });
    for (let id = 0; id < 3; id++) base.set(id, row(id));
    const view = RemoteView.ofBase(base);
    view.detach();
    base.set(1, { ...row(1), remoteName: 'renamed' });
    // Detached, it was not told: the row it read through changed under it.
    expect(view.get(1)?.name).toBe('renamed');
    const followed = RemoteView.ofBase(base);
    base.set(2, { ...row(2), remoteName: 'renamed' });
    expect(followed.get(2)?.name).toBe('n2');
    expect(followed.apart).toBe(1);
  });

  it('grows past its first block of rows and reuses rows freed by deletions', () => {
    const store = new RemoteTree();
    const item = (id: number): RemoteItem => ({ id, parentId: id > 0 ? id - 1 : null, name: `n${id}`, type: 'file', size: id, updatedAt: '2026-11-22T09:01:58.000001Z' });
    for (let id = 0; id < 5000; id++) store.set(id, item(id));
    for (let id = 0; id < 5000; id += 2) store.delete(id);
    for (let id = 5000; id < 7500; id++) store.set(id, item(id));
    expect(store.size).toBe(5000);
    for (let id = 1; id < 5000; id += 2) expect(store.get(id)).toEqual(item(id));
    for (let id = 5000; id < 7500; id++) expect(store.get(id)).toEqual(item(id));
  });

  it('local and remote trees built from base are what a scan and a listing of a settled tree give', () => {
    const base = new BaseTree();
    base.set(7, { remoteId: 7, parentId: null, remoteName: 'docs', path: 'docs', type: 'folder', inode: 11, size: 0, mtimeMs: 1.5, hash: null, remoteSize: 0, remoteUpdatedAt: '2026-01-01T00:00:00.000000Z' });
    base.set(8, { remoteId: 8, parentId: 7, remoteName: 'a:b.txt', path: 'docs/a_b.txt', type: 'file', inode: 12, size: 3, mtimeMs: 2.25, birthtimeMs: 1.125, hash: 'ab'.repeat(32), remoteSize: 3, remoteUpdatedAt: '2026-01-02T00:00:00.5Z' });
    expect([...LocalTree.fromBase(base).values()]).toEqual([
      { path: 'docs', type: 'folder', inode: 11, size: 0, mtimeMs: 1.5 },
      { path: 'docs/a_b.txt', type: 'file', inode: 12, size: 3, mtimeMs: 2.25, birthtimeMs: 1.125 },
    ]);
    expect([...RemoteView.ofBase(base).values()]).toEqual([
      { id: 7, parentId: null, name: 'docs', type: 'folder', size: 0, updatedAt: '2026-01-01T00:00:00.000000Z' },
      { id: 8, parentId: 7, name: 'a:b.txt', type: 'file', size: 3, updatedAt: '2026-01-02T00:00:00.5Z' },
    ]);
  });

  it('tells a scan which paths are synced, and which files to hash: synced files whose size, mtime or inode changed', () => {
    const base = new BaseTree();
    base.set(1, { remoteId: 1, parentId: null, remoteName: 'f', path: 'f', type: 'file', inode: 5, size: 10, mtimeMs: 100, hash: null, remoteSize: 10, remoteUpdatedAt: 'x' });
    base.set(2, { remoteId: 2, parentId: null, remoteName: 'd', path: 'd', type: 'folder', inode: 6, size: 0, mtimeMs: 100, hash: null, remoteSize: 0, remoteUpdatedAt: 'x' });
    const { needsHash: changed, isSynced } = base.scanLookup();
    expect([isSynced('f'), isSynced('d'), isSynced('new')]).toEqual([true, true, false]);
    const item = (path: string, inode: number, size: number, mtimeMs: number): LocalItem => ({ path, type: 'file', inode, size, mtimeMs });
    expect(changed(item('f', 5, 10, 100))).toBe(false);
    expect(changed(item('f', 5, 11, 100))).toBe(true);
    expect(changed(item('f', 5, 10, 101))).toBe(true);
    expect(changed(item('f', 9, 10, 100))).toBe(true);
    expect(changed(item('d', 1, 1, 1))).toBe(false);
    expect(changed(item('new', 1, 1, 1))).toBe(false);
  });

  it('hashes a synced file at its path with its inode but another birth time (a new file given the freed number)', () => {
    const base = new BaseTree();
    base.set(1, { remoteId: 1, parentId: null, remoteName: 'f', path: 'f', type: 'file', inode: 5, size: 10, mtimeMs: 100, birthtimeMs: 50, hash: null, remoteSize: 10, remoteUpdatedAt: 'x' });
    base.set(2, { remoteId: 2, parentId: null, remoteName: 'g', path: 'g', type: 'file', inode: 6, size: 10, mtimeMs: 100, hash: null, remoteSize: 10, remoteUpdatedAt: 'x' });
    const { needsHash: changed } = base.scanLookup();
    const item = (path: string, inode: number, birthtimeMs?: number): LocalItem => ({ path, type: 'file', inode, size: 10, mtimeMs: 100, ...(birthtimeMs ? { birthtimeMs } : {}) });
    expect(changed(item('f', 5, 50))).toBe(false);
    expect(changed(item('f', 5, 70))).toBe(true);
    // Unknown on either side: as before birth times were recorded.
    expect(changed(item('f', 5))).toBe(false);
    expect(changed(item('g', 6, 70))).toBe(false);
  });
});
