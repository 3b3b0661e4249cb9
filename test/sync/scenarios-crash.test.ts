import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Mirror } from '../../main/sync/trees/mirror.js';
import { localTree, newAccount, sorted, type Account, type Computer, SCENARIO_CASES } from '../helpers/sync.js';

/** Makes the next mirror commit of this engine fail as if the process died right after the request. */
function crashBeforeNextCommit(computer: Computer): void {
  const mirror = (computer.engine as unknown as { mirror: Mirror }).mirror;
  const original = mirror.commit.bind(mirror);
  let armed = true;
  mirror.commit = (...args: Parameters<Mirror['commit']>) => {
    if (armed && args[0] !== null) {
      armed = false;
      throw new Error('simulated crash between the request and the mirror commit');
    }
    return original(...args);
  };
}

describe.each(SCENARIO_CASES)('sync scenarios: crash safety and faults (%s, %s)', (mode, profile) => {
  let account: Account;
  beforeEach(async () => {
    account = await newAccount(undefined, { mode, profile });
  });
  afterEach(() => account.close());

  const count = (prefix: string) => account.requests.filter((r) => r.startsWith(prefix)).length;

  it.each([
    ['upload', (c: Computer) => writeFileSync(join(c.root, 'fresh.txt'), 'fresh')],
    ['rename', (c: Computer) => renameSync(join(c.root, 'docs', 'a.txt'), join(c.root, 'docs', 'renamed.txt'))],
    ['move', (c: Computer) => renameSync(join(c.root, 'docs', 'a.txt'), join(c.root, 'other', 'a.txt'))],
    ['trash', (c: Computer) => rmSync(join(c.root, 'docs', 'a.txt'))],
  ])('20. %s: a crash between the request and the mirror commit converges without duplicates', async (_name, change) => {
    const a = account.computer('alpha');
    mkdirSync(join(a.root, 'docs'));
    mkdirSync(join(a.root, 'other'));
    writeFileSync(join(a.root, 'docs', 'a.txt'), 'content of a');
    await a.sync();
    change(a);
    crashBeforeNextCommit(a);
    await a.sync();
    await a.restart();
    const uploadsBefore = count('POST /uploads');
    expect((await a.sync()).inSync).toBe(true);
    expect(count('POST /uploads')).toBe(uploadsBefore);
    expect(sorted(await account.remoteTree())).toEqual(sorted(localTree(a.root)));
    expect((await a.sync()).done).toBe(0);
  });

  it('14. apply-then-drop on an upload is adopted, not sent again', async () => {
    const a = account.computer('alpha');
    account.server.faults.set('apply-drop=1,match=POST:/api/v1/uploads,count=1');
    writeFileSync(join(a.root, 'dropped.txt'), 'the reply was lost');
    const adopted: string[] = [];
    a.engine.on('activity', (activity) => {
      if (activity.rule === 'adopt') adopted.push(`${activity.kind} ${activity.path}`);
    });
    await a.sync();
    account.server.faults.set(null);
    await a.sync();
    const remote = await account.remoteTree();
    expect(sorted(remote)).toEqual({ 'dropped.txt': 'the reply was lost' });
    expect(count('POST /uploads')).toBe(1);
    expect(adopted).toEqual(['record dropped.txt']);
  });

  it('14. 5xx on some uploads: the others complete and the failed ones are retried next pass', async () => {
    const a = account.computer('alpha');
    for (let i = 0; i < 10; i++) writeFileSync(join(a.root, `f${i}.txt`), `file ${i}`);
    account.server.faults.set('500=1,match=POST:/api/v1/uploads,count=3');
    const first = await a.sync();
    expect(first.failed).toHaveLength(3);
    expect((await account.remoteTree()).size).toBe(7);
    expect((await a.sync()).inSync).toBe(true);
    expect(sorted(await account.remoteTree())).toEqual(sorted(localTree(a.root)));
  });

  it('14. 429 with Retry-After pauses the queue and the pass still completes', async () => {
    const a = account.computer('alpha');
    for (let i = 0; i < 4; i++) writeFileSync(join(a.root, `f${i}.txt`), `file ${i}`);
    account.server.faults.set('429=1,retry-after=1,match=POST:/api/v1/uploads,count=1');
    const started = Date.now();
    await a.sync();
    const summary = await a.sync();
    expect(summary.inSync).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(sorted(await account.remoteTree())).toEqual(sorted(localTree(a.root)));
  });

  it('14. a 429 while more operations wait than run: the pass pauses, resumes and completes', async () => {
    const a = account.computer('alpha');
    for (let i = 0; i < 24; i++) writeFileSync(join(a.root, `f${i}.txt`), `file ${i}`);
    account.server.faults.set('429=1,retry-after=1,match=POST:/api/v1/uploads,count=1');
    const first = await a.sync();
    expect(first.failed).toEqual([]);
    expect(first.inSync).toBe(true);
    expect(sorted(await account.remoteTree())).toEqual(sorted(localTree(a.root)));
  });

  it('14. stopping the engine during a 429 pause does not wait for the pause', async () => {
    const a = account.computer('alpha');
    for (let i = 0; i < 24; i++) writeFileSync(join(a.root, `f${i}.txt`), `file ${i}`);
    // Paused for 10 minutes: a stop that waited for it would outlast the test's timeout.
    account.server.faults.set('429=1,retry-after=600,match=POST:/api/v1/uploads,count=1');
    let paused!: () => void;
    const rateLimited = new Promise<void>((resolve) => (paused = resolve));
    const pass = a.engine.syncOnce({ fullScan: true });
    const poll = setInterval(() => {
      if (account.requests.filter((r) => r === 'POST /uploads').length >= 4) paused();
    }, 10);
    await rateLimited;
    clearInterval(poll);
    await a.engine.stop();
    expect((await pass).inSync).toBe(false);
  });

  it('19. moves and edits made while the engine was stopped are found by the scan', async () => {
    const a = account.computer('alpha');
    mkdirSync(join(a.root, 'inbox'));
    mkdirSync(join(a.root, 'done'));
    writeFileSync(join(a.root, 'inbox', 'task.txt'), 'task');
    writeFileSync(join(a.root, 'notes.txt'), 'notes v1');
    await a.sync();
    await a.engine.stop();
    renameSync(join(a.root, 'inbox', 'task.txt'), join(a.root, 'done', 'task.txt'));
    writeFileSync(join(a.root, 'notes.txt'), 'notes v2, longer');
    await a.restart();
    const mark = account.requests.length;
    await a.sync();
    const sent = account.requests.slice(mark).filter((r) => !r.startsWith('GET'));
    expect(sent).toContain('POST /file-entries/move');
    expect(sent.filter((r) => r === 'POST /uploads')).toHaveLength(1); // the edit only
    expect(sorted(await account.remoteTree())).toEqual(sorted(localTree(a.root)));
  });

  it('19. a folder renamed and a file in it renamed while the engine was stopped: both are renames, nothing uploaded or downloaded', async () => {
    const a = account.computer('alpha');
    const b = account.computer('beta');
    mkdirSync(join(b.root, 'pics'));
    writeFileSync(join(b.root, 'pics', 'plan.txt'), 'the plan');
    writeFileSync(join(b.root, 'pics', 'keep.txt'), 'kept');
    await b.sync();
    await a.sync();
    await b.engine.stop();
    renameSync(join(b.root, 'pics'), join(b.root, 'work'));
    renameSync(join(b.root, 'work', 'plan.txt'), join(b.root, 'work', 'b.txt'));
    const before = await account.entryIds();
    await b.restart();
    const mark = account.requests.length;
    await b.sync();
    const sent = account.requests.slice(mark).filter((r) => !r.startsWith('GET'));
    expect(sent.filter((r) => r === 'POST /uploads')).toEqual([]);
    const after = await account.entryIds();
    expect(after.get('work')).toBe(before.get('pics'));
    expect(after.get('work/b.txt')).toBe(before.get('pics/plan.txt'));
    expect(sorted(localTree(b.root))).toEqual({ work: '/', 'work/b.txt': 'the plan', 'work/keep.txt': 'kept' });
    await a.sync();
    expect(sorted(localTree(a.root))).toEqual(sorted(localTree(b.root)));
  });
});
