/**
 * What "Shared with me" costs an idle client: Alice shares a folder of N files (10,000 by default) with Bob, on the
 * deployed profile (its entries name the owner, as deployed versions answer). Measured through Bob's client, bytes
 * counted as they arrive: the look at the shared entries each poll makes (`listSharedTops`, one request), and the
 * listing of what they hold (`listSharedArea`), which the engine repeats at 1.5 s an entry. From these, the traffic
 * the shared part adds to an idle minute at the default 15 s poll; the goal is a quarter of the idle budget (256 KiB).
 */
import { DriveClient } from '../../main/api/client.js';
import { listSharedArea, listSharedTops } from '../../main/sync/shared.js';
import { benchmarkMain, cleanup, count, intFromEnv, layout, log, median, ms, seedServer, SIZES, startBenchServer, timed, type BenchResult } from './common.js';

const FILES = intFromEnv('BENCH_SHARED_FILES', 10_000, 1_000);
const POLL_MS = 15_000;
const WALK_MS_PER_ENTRY = 1_500;
const GOAL_KIB_PER_MINUTE = 64;

benchmarkMain(async (): Promise<BenchResult> => {
  try {
    const server = await startBenchServer(undefined, 'deployed');
    const alice = await server.register('alice@example.com');
    const bob = await server.register('bob@example.com');
    const owner = new DriveClient({ origin: server.url, token: alice.token });
    const team = await owner.entries.createFolder('Team', null);
    const tree = layout(FILES);
    seedServer(server.dataDir, alice.id, tree, team.id);
    await owner.sharing.share(team.id, ['bob@example.com'], ['view', 'download']);
    log(`Alice shares Team: ${tree.describe}`);

    const client = new DriveClient({ origin: server.url, token: bob.token });
    let bytes = 0;
    let requests = 0;
    const http = client.http as unknown as { api: typeof client.http.api };
    http.api = client.http.api.extend({
      hooks: {
        afterResponse: [
          (response) => {
            requests++;
            bytes += Buffer.byteLength(typeof response.body === 'string' ? response.body : JSON.stringify(response.body ?? ''));
            return response;
          },
        ],
      },
    });
    const place = { folder: 'Shared with me', me: 'bob@example.com' };
    const measure = async <T>(fn: () => Promise<T>) => {
      bytes = 0;
      requests = 0;
      const { ms: took, value } = await timed(fn);
      return { took, value, bytes, requests };
    };

    const looks = [];
    for (let i = 0; i < SIZES.reps; i++) looks.push(await measure(() => listSharedTops(client, place.me)));
    const walks = [];
    for (let i = 0; i < Math.min(3, SIZES.reps); i++) walks.push(await measure(() => listSharedArea(client, place)));
    const look = looks.at(-1)!;
    const walk = walks.at(-1)!;
    const entries = walk.value.items.length;
    const walkSpacingMs = Math.max(POLL_MS, entries * WALK_MS_PER_ENTRY);
    const perMinute = (look.bytes * 60_000) / POLL_MS + (walk.bytes * 60_000) / walkSpacingMs;
    const kib = perMinute / 1024;
    log(`look at the shared entries: ${count(look.bytes)} B in ${look.requests} request(s), ${ms(median(looks.map((l) => l.took)))}`);
    log(`listing of what they hold: ${count(entries)} entries, ${count(walk.bytes)} B in ${walk.requests} requests, ${ms(median(walks.map((w) => w.took)))}`);
    log(`listed again every ${(walkSpacingMs / 60_000).toFixed(1)} min: ${kib.toFixed(1)} KiB a minute with a look every 15 s`);
    return {
      id: 'shared',
      target: 'what Shared with me adds to an idle minute (a folder of N files shared with the account)',
      size: `${tree.describe}, shared`,
      measured: `${kib.toFixed(1)} KiB/min`,
      goal: `≤ ${GOAL_KIB_PER_MINUTE} KiB/min`,
      pass: kib <= GOAL_KIB_PER_MINUTE,
      details: [
        `look each poll: ${count(look.bytes)} B, ${look.requests} request, median ${ms(median(looks.map((l) => l.took)))}`,
        `listing of the shared folder: ${count(entries)} entries, ${count(walk.bytes)} B (${(walk.bytes / entries).toFixed(0)} B an entry), ${walk.requests} requests, median ${ms(median(walks.map((w) => w.took)))}`,
        `a change inside the shared folder arrives within ${(walkSpacingMs / 60_000).toFixed(1)} min (1.5 s an entry); a new or ended share, a permission or a rename of the shared entry within a poll`,
      ],
    };
  } finally {
    await cleanup();
  }
});
