import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderLoop, type FolderRequest, type FolderWork, type PassRequest, type Work } from '../../main/sync/engine/folder-loop.js';
import { ENGINE_STATES, type EngineState } from '../../main/sync/model/states.js';
import { newAccount, settleEngine, type Account } from '../helpers/sync.js';

interface Summary {
  pass: number;
  request: PassRequest;
}

/** A loop whose passes and looks end when the test says, logging what it was asked and what it ran. */
function harness(answer: (request: FolderRequest) => Work = (r) => (r.kind === 'poll' ? { check: true } : r.kind === 'sync' ? { pass: { fullScan: r.fullScan, listRemote: r.listRemote } } : null)) {
  const log: string[] = [];
  const passes: Array<{ request: PassRequest; end: () => void }> = [];
  const checks: Array<(asks: PassRequest | null) => void> = [];
  const passed: Summary[] = [];
  let count = 0;
  const work: FolderWork<Summary> = {
    take: (request) => {
      log.push(`take ${request.kind}`);
      return answer(request);
    },
    check: () => {
      log.push('check');
      return new Promise((resolve) => checks.push(resolve));
    },
    pass: (request) => {
      const n = ++count;
      log.push(`pass ${n} ${request.fullScan ? 'full' : 'paths'} ${request.listRemote ? 'listed' : 'unlisted'}`);
      return new Promise((resolve) => passes.push({ request, end: () => resolve({ pass: n, request }) }));
    },
    passed: (summary) => passed.push(summary),
    empty: () => ({ pass: 0, request: { fullScan: false, listRemote: false } }),
  };
  return { loop: new FolderLoop(work), log, passes, checks, passed };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const sync = (fullScan: boolean, listRemote: boolean): FolderRequest => ({ kind: 'sync', fullScan, listRemote });

describe('the folder loop', () => {
  it('starts a pass at once, and merges what is asked meanwhile into one follow-up pass every caller waits on', async () => {
    const { loop, log, passes, passed } = harness();
    const first = loop.submit(sync(false, false));
    // The pass started before submit returned.
    expect(log).toEqual(['take sync', 'pass 1 paths unlisted']);
    expect(loop.idle).toBe(false);
    const second = loop.submit(sync(true, false));
    const third = loop.submit(sync(false, true));
    expect(third).toBe(second);
    passes[0]!.end();
    expect(await first).toEqual({ pass: 1, request: { fullScan: false, listRemote: false } });
    expect(passes).toHaveLength(2);
    expect(passes[1]!.request).toEqual({ fullScan: true, listRemote: true });
    passes[1]!.end();
    expect(await second).toMatchObject({ pass: 2 });
    expect(passed.map((s) => s.pass)).toEqual([1, 2]);
    expect(loop.idle).toBe(true);
  });

  it('serves jobs in the order they were asked: a look queued before a pass runs first, and the pass it asks for merges', async () => {
    const { loop, log, passes, checks } = harness();
    const first = loop.submit(sync(false, false));
    const look = loop.submit({ kind: 'poll' });
    // A second look while one waits is that look.
    expect(loop.submit({ kind: 'poll' })).toBe(look);
    const after = loop.submit(sync(false, false));
    passes[0]!.end();
    await first;
    expect(log.at(-1)).toBe('check');
    expect(passes).toHaveLength(1);
    // The look found news: its listing is merged into the pass that waits behind it.
    checks[0]!({ fullScan: false, listRemote: true });
    await tick();
    expect(passes).toHaveLength(2);
    expect(passes[1]!.request).toEqual({ fullScan: false, listRemote: true });
    passes[1]!.end();
    expect(await look).toEqual(await after);
  });

  it('merges what two looks saw into the pass that waits; a full listing asked meanwhile makes it moot', async () => {
    const { loop, passes, checks } = harness();
    const file = (id: number) => ({ id, name: `f${id}`, type: 'text', parent_id: null }) as never;
    const first = loop.submit(sync(false, false));
    void loop.submit({ kind: 'poll' });
    passes[0]!.end();
    await first;
    await tick();
    // One look runs, the next waits behind it; what the first saw asks for a pass, which waits behind the second.
    void loop.submit({ kind: 'poll' });
    checks[0]!({ fullScan: false, listRemote: false, remoteDelta: { changed: [file(4), file(5)], trashed: [2], fetch: [] } });
    await tick();
    checks[1]!({ fullScan: false, listRemote: false, remoteDelta: { changed: [file(6)], trashed: [5, 3], fetch: [9] } });
    await tick();
    // The later answer about an entry holds: 5, new to the first look, was trashed by the second.
    expect(passes[1]!.request).toEqual({ fullScan: false, listRemote: false, remoteDelta: { changed: [file(4), file(6)], trashed: [2, 5, 3], fetch: [9] } });

    void loop.submit({ kind: 'poll' });
    passes[1]!.end();
    await tick();
    await tick();
    const listed = loop.submit(sync(false, true));
    checks[2]!({ fullScan: false, listRemote: false, remoteDelta: { changed: [file(7)], trashed: [], fetch: [] } });
    await tick();
    expect(passes[2]!.request).toEqual({ fullScan: false, listRemote: true });
    passes[2]!.end();
    await listed;
  });

  it('a look that finds nothing runs no pass and answers null', async () => {
    const { loop, passes, checks } = harness();
    const look = loop.submit({ kind: 'poll' });
    checks[0]!(null);
    expect(await look).toBeNull();
    expect(passes).toHaveLength(0);
    expect(loop.idle).toBe(true);
  });

  it('takes a request at once even while a pass runs: its effect holds before the pass ends', () => {
    const { loop, log } = harness();
    void loop.submit(sync(true, true));
    void loop.submit({ kind: 'pause' });
    expect(log).toEqual(['take sync', 'pass 1 full listed', 'take pause']);
  });

  it('stop ends it: what waits is answered without running, stop resolves once the pass under way ended, nothing runs after', async () => {
    const { loop, log, passes, passed } = harness();
    const running = loop.submit(sync(false, false));
    const waiting = loop.submit(sync(true, true));
    let ended = false;
    const stopped = loop.submit({ kind: 'stop' }).then(() => (ended = true));
    expect(await waiting).toEqual({ pass: 0, request: { fullScan: false, listRemote: false } });
    await tick();
    expect(ended).toBe(false);
    passes[0]!.end();
    await running;
    await stopped;
    expect(passed.map((s) => s.pass)).toEqual([1]);
    expect(await loop.submit(sync(true, true))).toMatchObject({ pass: 0 });
    expect(await loop.submit({ kind: 'poll' })).toBeNull();
    expect(passes).toHaveLength(1);
    expect(log.filter((l) => l.startsWith('pass'))).toEqual(['pass 1 paths unlisted']);
  });

  it('a stop with nothing under way ends at once', async () => {
    const { loop } = harness();
    await expect(loop.submit({ kind: 'stop' })).resolves.toBeNull();
  });

  it('a pass that throws is told to its callers and the loop goes on', async () => {
    let fail = true;
    const work: FolderWork<number> = {
      take: (r) => (r.kind === 'sync' ? { pass: r } : null),
      check: async () => null,
      pass: async () => {
        if (fail) {
          fail = false;
          throw new Error('broken');
        }
        return 7;
      },
      passed: () => undefined,
      empty: () => 0,
    };
    const loop = new FolderLoop(work);
    await expect(loop.submit(sync(false, false))).rejects.toThrow('broken');
    expect(await loop.submit(sync(false, false))).toBe(7);
  });
});

describe('the engine state, live', () => {
  let account: Account | null = null;
  afterEach(() => account?.close());

  it('every transition emits state, from starting to stopped, waiting for consent included', async () => {
    account = await newAccount(undefined, { mode: 'live' });
    const a = account.computer('alpha');
    for (let i = 0; i < 12; i++) writeFileSync(join(a.root, `f${i}.txt`), `${i}`);
    const engine = a.engine;
    const seen: Array<[EngineState, string | undefined]> = [];
    engine.on('state', (state, detail) => {
      seen.push([state, detail]);
      // The state read back is the one just told.
      expect(engine.state).toBe(state);
    });
    expect(engine.state).toBe('starting');
    expect((await engine.start()).inSync).toBe(true);
    await settleEngine(engine);
    expect(engine.state).toBe('idle');
    engine.pause();
    expect(engine.state).toBe('paused');
    for (let i = 0; i < 12; i++) rmSync(join(a.root, `f${i}.txt`));
    // The watcher names the deletions while paused; resuming acts on all of them at once. Under load the file system
    // may tell them in several batches: resumed only once every one has reached the engine (else the first batch, half
    // of the folder or less, would go without a question, as the guard's rule says).
    // Named while paused: gathered by the engine until a pass takes them.
    const named = () => (engine as unknown as { watch: { named: Set<string> } }).watch.named;
    const allNamed = () => Array.from({ length: 12 }, (_, i) => `f${i}.txt`).every((path) => named().has(path));
    for (let tries = 0; !allNamed() && tries < 1500; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(allNamed()).toBe(true);
    const asked = new Promise((resolve) => engine.once('confirm-deletions', resolve));
    void engine.resume();
    expect(await asked).toMatchObject({ count: 12, synced: 12, bytes: 14 });
    expect(engine.state).toBe('waiting-for-consent');
    expect(seen.at(-1)).toEqual(['waiting-for-consent', 'waiting for your answer to delete 12 items']);
    // Paused instead of answered (the window's "decide later"): resuming asks again.
    engine.pause();
    const again = new Promise((resolve) => engine.once('confirm-deletions', resolve));
    void engine.resume();
    expect(await again).toMatchObject({ count: 12, synced: 12 });
    engine.confirmDeletions();
    await settleEngine(engine);
    expect(engine.state).toBe('idle');
    expect(engine.syncedCount).toBe(0);
    await engine.stop();
    expect(engine.state).toBe('stopped');
    const states = seen.map(([state]) => state);
    expect(states.slice(0, 3)).toEqual(['scanning', 'syncing', 'idle']);
    expect(states.at(-1)).toBe('stopped');
    for (const state of ['paused', 'waiting-for-consent'] as const) expect(states).toContain(state);
    expect(states.every((state) => (ENGINE_STATES as readonly string[]).includes(state))).toBe(true);
  });
});
