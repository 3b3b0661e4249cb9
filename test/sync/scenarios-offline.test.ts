/**
 * A computer offline while another edits the same files. Sameness is proven by bytes: an upload of this computer's
 * that may have been lost is taken for the entry on the drive only when the drive's bytes are this computer's, so an
 * edit of the same size made elsewhere meanwhile is kept as a conflicted copy, never taken for this computer's own.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Mirror } from '../../main/sync/trees/mirror.js';
import { localTree, newAccount, sorted, type Account, type Computer, SCENARIO_CASES } from '../helpers/sync.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';

const mirrorOf = (computer: Computer) => (computer.engine as unknown as { mirror: Mirror }).mirror;

/** Every text on the drive, in conflicted copies too. */
const contents = (tree: Map<string, string>) => [...tree.values()].filter((text) => text !== '/').sort();

describe.each(SCENARIO_CASES)('sync scenarios: offline and back (%s, %s)', (mode, profile) => {
  let account: Account;
  let proxy: TestProxy;
  let a: Computer;
  let b: Computer;
  beforeEach(async () => {
    account = await newAccount(undefined, { mode, profile });
    proxy = await startProxy(account.server.url);
    a = account.computer('alpha');
    // Beta reaches the server through a proxy the test controls; short deadlines so an unanswered request fails soon.
    b = account.computer('beta', { client: account.clientAt(proxy.url, { timeouts: { connect: 2_000, response: 3_000, request: 4_000, stall: 3_000 } }) });
    writeFileSync(join(a.root, 'f9.txt'), 'f9 original');
    writeFileSync(join(a.root, 'f10.txt'), 'f10 original');
    writeFileSync(join(a.root, 'keep.txt'), 'untouched');
    await a.sync();
    await b.sync();
    expect(b.file('f9.txt')).toBe('f9 original');
  });
  afterEach(async () => {
    await account.close();
    await proxy.close();
  });

  /**
   * The network goes the moment beta's next upload is about to connect, and stays away until healed: the pass had
   * listed the drive, its uploads are refused.
   */
  const networkGoesAtFirstUpload = () => {
    const client = (b.engine as unknown as { options: { client: Account['client'] } }).options.client;
    const http = client.http as unknown as { api: typeof client.http.api };
    let armed = true;
    http.api = client.http.api.extend({
      hooks: {
        beforeRequest: [
          async (options) => {
            if (!armed || options.method !== 'POST' || !String(options.url).endsWith('/uploads')) return;
            armed = false;
            await proxy.refuse();
            // The connections kept open for reuse learn they were cut, so the upload has to connect anew.
            await sleep(100);
          },
        ],
      },
    });
  };

  const converge = async () => {
    for (let round = 0; round < 3; round++) {
      await b.sync();
      await a.sync();
    }
    const remote = await account.remoteTree();
    expect(sorted(localTree(a.root))).toEqual(sorted(remote));
    expect(sorted(localTree(b.root))).toEqual(sorted(remote));
    return remote;
  };

  it('equal-size and different-size edits on both computers while one is offline: every edit is kept', async () => {
    // Beta's upload of its edit is the moment its network goes; it makes more changes while offline.
    networkGoesAtFirstUpload();
    writeFileSync(join(b.root, 'f9.txt'), 'f9 edited on B');
    expect((await b.sync()).inSync).toBe(false);
    expect(proxy.state).toBe('refusing');
    writeFileSync(join(b.root, 'f10.txt'), 'f10 B');
    writeFileSync(join(b.root, 'new-on-b.txt'), 'made offline');
    expect((await b.sync()).inSync).toBe(false);
    writeFileSync(join(a.root, 'f9.txt'), 'f9 edited on A');
    writeFileSync(join(a.root, 'f10.txt'), 'f10 edited on A, longer');
    await a.sync();
    await proxy.heal();
    const remote = await converge();
    expect(contents(remote)).toEqual(['f10 B', 'f10 edited on A, longer', 'f9 edited on A', 'f9 edited on B', 'made offline', 'untouched']);
    // The drive's version keeps the name; this computer's is its conflicted copy.
    expect(remote.get('f9.txt')).toBe('f9 edited on A');
    expect([...remote.keys()].filter((path) => path.startsWith('f9 (conflicted copy '))).toHaveLength(1);
    expect(mirrorOf(b).intents()).toEqual([]);
  });

  it('an upload that was sent but never answered is not taken for the same-size edit another computer saved since', async () => {
    // The connection closes before the server handles the upload: the request may have reached it, so the
    // journal keeps it, and only the drive's bytes can tell.
    // (Every try while the fault holds: a live engine tries again within the same sync.)
    account.server.faults.set('drop=1,match=POST:/api/v1/uploads');
    writeFileSync(join(b.root, 'f9.txt'), 'f9 edited on B');
    await b.sync();
    account.server.faults.set(null);
    expect(mirrorOf(b).intents().map((intent) => intent.kind)).toEqual(['replace-remote']);
    writeFileSync(join(a.root, 'f9.txt'), 'f9 edited on A');
    await a.sync();
    const remote = await converge();
    expect(contents(remote)).toEqual(['f10 original', 'f9 edited on A', 'f9 edited on B', 'untouched']);
    expect(remote.get('f9.txt')).toBe('f9 edited on A');
  });

  it('an upload whose answer was lost is adopted, proven by its bytes, without a second copy', async () => {
    account.server.faults.set('apply-drop=1,match=POST:/api/v1/uploads,count=1');
    writeFileSync(join(b.root, 'f9.txt'), 'f9 edited on B');
    await b.sync();
    account.server.faults.set(null);
    const uploads = account.requests.filter((r) => r === 'POST /uploads').length;
    const remote = await converge();
    expect(account.requests.filter((r) => r === 'POST /uploads').length).toBe(uploads);
    expect(contents(remote)).toEqual(['f10 original', 'f9 edited on B', 'untouched']);
  });

  it('an upload refused before it left is planned afresh, without looking for it on the drive', async () => {
    networkGoesAtFirstUpload();
    writeFileSync(join(b.root, 'f9.txt'), 'f9 edited on B');
    const refused = await b.sync();
    expect(refused.inSync).toBe(false);
    expect(mirrorOf(b).intents()).toEqual([]);
    await proxy.heal();
    writeFileSync(join(a.root, 'f9.txt'), 'f9 edited on A');
    await a.sync();
    const remote = await converge();
    expect(contents(remote)).toEqual(['f10 original', 'f9 edited on A', 'f9 edited on B', 'untouched']);
  });
});
