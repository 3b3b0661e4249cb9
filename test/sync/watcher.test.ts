import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchTree, type Watcher } from '../../main/sync/watcher.js';
import { newAccount, type Account } from '../helpers/sync.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(20);
  }
}

describe('the watcher port', () => {
  let watcher: Watcher | undefined;
  afterEach(async () => {
    await watcher?.close();
    watcher = undefined;
  });

  it('reports a file once it has stopped changing, deletions at once, and never the state folder', async () => {
    const root = mkdtempSync(join(tmpdir(), 'drivesync-watch-'));
    mkdirSync(join(root, '.drivesync'));
    const batches: Array<{ at: number; paths: string[] }> = [];
    watcher = await watchTree(root, {
      ignoreDirs: ['.drivesync'],
      stabilityMs: 150,
      onChange: (paths) => batches.push({ at: Date.now(), paths: paths.sort() }),
      onError: (error) => {
        throw error;
      },
    });
    const started = Date.now();
    for (let i = 0; i < 5; i++) {
      appendFileSync(join(root, 'growing.txt'), `chunk ${i}\n`);
      writeFileSync(join(root, '.drivesync', `noise${i}`), 'x');
      await sleep(60);
    }
    const lastWrite = Date.now();
    await until(() => (batches.some((b) => b.paths.includes('growing.txt')) ? true : undefined));
    const reported = batches.filter((b) => b.paths.includes('growing.txt'));
    expect(reported).toHaveLength(1);
    // Writes came every 60 ms for ~300 ms: the file is reported only after they stopped.
    expect(reported[0]!.at - lastWrite).toBeGreaterThanOrEqual(100);
    expect(reported[0]!.at - started).toBeGreaterThanOrEqual(300);
    expect(batches.flatMap((b) => b.paths).some((p) => p.startsWith('.drivesync'))).toBe(false);

    rmSync(join(root, 'growing.txt'));
    await until(() => (batches.filter((b) => b.paths.includes('growing.txt')).length === 2 ? true : undefined));
  });
});

describe('the running engine', () => {
  let account: Account | undefined;
  afterEach(async () => {
    await account?.close();
    account = undefined;
  });

  it('uploads a file saved while it runs, without waiting for a poll', async () => {
    account = await newAccount();
    const a = account.computer('alpha', { pollIntervalMs: 60_000 });
    await a.engine.start();
    writeFileSync(join(a.root, 'saved.txt'), 'saved while running');
    const tree = await until(async () => {
      const remote = await account!.remoteTree();
      return remote.get('saved.txt') === 'saved while running' ? remote : undefined;
    });
    expect([...tree.keys()]).toEqual(['saved.txt']);
  });
});
