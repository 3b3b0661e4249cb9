/**
 * Live mode on a virtual clock: the watcher's batching and stability wait, the hold on disappearances and the
 * settle timers all run on the engine's Clock port. While the clock given stands still, real time passing changes
 * nothing; moved on, the rename goes at once and the deletion only once the folder has been quiet for the hold's
 * settle time — virtual, not real.
 */
import { renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../main/sync/local/ports.js';
import { newAccount, type Account } from '../helpers/sync.js';

/** A clock that moves only when told; timers due at the time it shows run, as a real clock's would. */
class ManualClock implements Clock {
  private at = Date.now();
  private timers: Array<{ due: number; callback: () => void }> = [];
  private readonly pump = setInterval(() => this.fireDue(), 5);

  now(): Date {
    return new Date(this.at);
  }

  after(ms: number, callback: () => void): () => void {
    const timer = { due: this.at + Math.max(0, ms), callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /**
   * Moves time on in small steps until `condition` holds, letting what each step starts run in real time before the
   * next (a step of 5 ms takes at least 10 ms of real time, so a slow stat does not fall behind the clock); returns
   * how far it moved.
   */
  async advanceUntil(what: string, condition: () => boolean, maxMs: number): Promise<number> {
    const from = this.at;
    while (!condition()) {
      if (this.at - from >= maxMs) throw new Error(`${what}: not within ${maxMs} ms of the clock given`);
      this.at += 5;
      this.fireDue();
      await sleep(10);
    }
    return this.at - from;
  }

  close(): void {
    clearInterval(this.pump);
  }

  private fireDue(): void {
    for (;;) {
      const due = this.timers.filter((t) => t.due <= this.at).sort((a, b) => a.due - b.due)[0];
      if (!due) return;
      this.timers = this.timers.filter((t) => t !== due);
      due.callback();
    }
  }
}

describe('live mode on a virtual clock', () => {
  let account: Account;
  let clock: ManualClock;
  beforeEach(async () => {
    account = await newAccount(undefined, { mode: 'live' });
    clock = new ManualClock();
  });
  afterEach(async () => {
    await account.close();
    clock.close();
  });

  /** Requests other than listings since `mark`. */
  const sent = (mark: number) => account.requests.slice(mark).filter((r) => !r.startsWith('GET /drive/file-entries'));

  it('a rename waits for the stability wait and a deletion for the hold, both on the clock given, not on real time', async () => {
    const a = account.computer('alpha', { clock, stabilityMs: 300, hold: { settleMs: 1500, maxMs: 30_000 } });
    mkdirSync(join(a.root, 'docs'));
    writeFileSync(join(a.root, 'docs', 'a.txt'), 'renamed while watched');
    writeFileSync(join(a.root, 'gone.txt'), 'deleted while watched');
    expect((await a.engine.start()).inSync).toBe(true);
    const before = await account.entryIds();
    const mark = account.requests.length;

    renameSync(join(a.root, 'docs', 'a.txt'), join(a.root, 'docs', 'b.txt'));
    rmSync(join(a.root, 'gone.txt'));
    // Longer in real time than the stability wait and the hold together: the clock given has not moved.
    await sleep(2_000);
    expect(sent(mark)).toEqual([]);

    // Past the batching and the stability wait: the new name is seen, and the rename goes alone.
    const renamedAfter = await clock.advanceUntil('the rename', () => sent(mark).length > 0, 1_200);
    expect(renamedAfter).toBeGreaterThanOrEqual(300);
    await sleep(2_000);
    expect(sent(mark)).toEqual([`PUT /file-entries/${before.get('docs/a.txt')}`]);
    const renamed = await account.entryIds();
    expect(renamed.get('docs/b.txt')).toBe(before.get('docs/a.txt'));
    expect(renamed.get('gone.txt')).toBe(before.get('gone.txt'));

    // The deletion goes once the folder has been quiet for the hold's settle time (after the new name was reported,
    // itself at least the stability wait after the rename), by the clock given.
    const deletedAfter = await clock.advanceUntil('the deletion', () => sent(mark).includes('DELETE /file-entries'), 10_000);
    expect(renamedAfter + deletedAfter).toBeGreaterThanOrEqual(300 + 1_500);
    await clock.advanceUntil('the engine to be quiet', () => a.engine.isQuiet(), 10_000);
    expect(sent(mark)).toEqual([`PUT /file-entries/${before.get('docs/a.txt')}`, 'DELETE /file-entries']);
    const after = await account.entryIds();
    expect(after.has('gone.txt')).toBe(false);
    expect(after.get('docs/b.txt')).toBe(before.get('docs/a.txt'));
    expect(sent(mark).filter((r) => r === 'POST /uploads')).toEqual([]);
    expect(a.trashed).toEqual([]);
  });
});
