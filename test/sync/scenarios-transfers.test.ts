import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, createReadStream, existsSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localTree, newAccount, sorted, type Account, SCENARIO_CASES } from '../helpers/sync.js';

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function writeBig(path: string, megabytes: number): void {
  const block = randomBytes(1024 * 1024);
  const fd = openSync(path, 'w');
  for (let i = 0; i < megabytes; i++) writeSync(fd, block);
  closeSync(fd);
}

describe.each(SCENARIO_CASES)('sync scenarios: transfers (%s, %s)', (mode, profile) => {
  let account: Account;
  beforeEach(async () => {
    account = await newAccount(undefined, { mode, profile });
  });
  afterEach(() => account.close());

  it('15. a file modified during its upload ends up on the server as it is now', async () => {
    const a = account.computer('alpha');
    const path = join(a.root, 'growing.bin');
    writeBig(path, 24);
    let touched = false;
    a.engine.on('transfer', (event) => {
      if (!touched && event.direction === 'up' && event.transferred > 1024 * 1024) {
        touched = true;
        appendFileSync(path, 'one more line');
      }
    });
    await a.sync();
    expect(touched).toBe(true);
    expect((await a.sync()).inSync).toBe(true);
    const remote = [...(await account.remoteTree()).entries()];
    expect(remote).toHaveLength(1);
    expect(remote[0]![1].endsWith('one more line')).toBe(true);
    expect((await a.sync()).done).toBe(0);
  });

  it('15. a file deleted during its upload is not left on the server', async () => {
    const a = account.computer('alpha');
    const path = join(a.root, 'vanishing.bin');
    writeBig(path, 24);
    let removed = false;
    a.engine.on('transfer', (event) => {
      if (!removed && event.direction === 'up' && event.transferred > 1024 * 1024) {
        removed = true;
        rmSync(path);
      }
    });
    await a.sync();
    expect(removed).toBe(true);
    await a.sync();
    expect(existsSync(path)).toBe(false);
    expect((await account.remoteTree()).size).toBe(0);
    expect(sorted(localTree(a.root))).toEqual({});
  });

  it('18. a 200 MB file each way', async () => {
    const a = account.computer('alpha');
    const b = account.computer('beta');
    const source = join(a.root, 'big.bin');
    writeBig(source, 200);
    const expected = await sha256(source);
    const progress: Array<{ transferred: number; rate?: number; etaSeconds?: number }> = [];
    a.engine.on('transfer', (event) => progress.push(event));
    expect((await a.sync()).inSync).toBe(true);
    // Progress comes with a rate and the time left.
    const late = progress.filter((p) => p.transferred > 50 * 1024 * 1024);
    expect(late.length).toBeGreaterThan(0);
    expect(late.every((p) => (p.rate ?? 0) > 0 && p.etaSeconds !== undefined && p.etaSeconds >= 0)).toBe(true);
    expect((await b.sync()).inSync).toBe(true);
    expect(await sha256(join(b.root, 'big.bin'))).toBe(expected);
    writeBig(join(b.root, 'back.bin'), 200);
    const back = await sha256(join(b.root, 'back.bin'));
    await b.sync();
    await a.sync();
    expect(await sha256(join(a.root, 'back.bin'))).toBe(back);
  }, 120_000);
});
