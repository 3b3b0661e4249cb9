/**
 * What "Shared with me" costs an idle client: Alice shares a folder of N files (10,000 by default) with Bob, on both
 * profiles of the reference server. Measured through Bob's client, bytes counted as they arrive: the look at the
 * shared entries each poll makes (`listSharedTops`, one request), the probe of the shared folders each poll makes
 * (`probeSharedFolders`: how many entries they hold, and where pages of one entry are answered the newest),
 * and the listing of what they hold (`listSharedArea`), which the engine repeats at 1.5 s an entry. From these, the
 * traffic the shared part adds to an idle minute at the default 15 s poll; the goal is a quarter of the idle budget.
 */
import { DriveClient } from '../../main/api/client.js';
import { listSharedArea, listSharedTops, probeSharedFolders } from '../../main/sync/remote/shared.js';
import { benchmarkMain, cleanup, count, intFromEnv, layout, log, median, ms, seedServer, SIZES, startBenchServer, timed, type BenchResult } from './common.js';

const FILES = intFromEnv('BENCH_SHARED_FILES', 10_000, 1_000);
const POLL_MS = 15_000;
const WALK_MS_PER_ENTRY = 1_500;
const GOAL_KIB_PER_MINUTE = 64;

/** One profile: the look, the listing of what is shared, the probe, and what they add to an idle minute. */
async function measureProfile(profile: 'documents' | 'deployed') {
  {
    const server = await startBenchServer(undefined, profile);
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
    const area = walk.value;
    const probe = await measure(() => probeSharedFolders(client, area));
    const probeBytes = probe.value === null ? 0 : probe.bytes;
    const entries = area.items.length;
    const walkSpacingMs = Math.max(POLL_MS, entries * WALK_MS_PER_ENTRY);
    const perMinute = ((look.bytes + probeBytes) * 60_000) / POLL_MS + (walk.bytes * 60_000) / walkSpacingMs;
    const kib = perMinute / 1024;
    log(`${profile}: look at the shared entries: ${count(look.bytes)} B in ${look.requests} request(s), ${ms(median(looks.map((l) => l.took)))}`);
    log(`${profile}: listing of what they hold: ${count(entries)} entries, ${count(walk.bytes)} B in ${walk.requests} requests, ${ms(median(walks.map((w) => w.took)))}`);
    log(`${profile}: probe: ${probe.value === null ? 'not answered' : `${count(probe.bytes)} B in ${probe.requests} requests, ${ms(probe.took)}`}`);
    log(`${profile}: listed again every ${(walkSpacingMs / 60_000).toFixed(1)} min: ${kib.toFixed(1)} KiB a minute with a look every 15 s`);
    await server.close();
    return { profile, look, walk, probe, probeBytes, entries, walkSpacingMs, kib, describe: tree.describe, looks, walks };
  }
}

benchmarkMain(async (): Promise<BenchResult> => {
  try {
    const results = [await measureProfile('documents'), await measureProfile('deployed')];
    const worst = Math.max(...results.map((r) => r.kib));
    const line = (r: (typeof results)[number]) =>
      `${r.profile}: ${r.kib.toFixed(1)} KiB/min; look ${count(r.look.bytes)} B; listing ${count(r.entries)} entries, ${count(r.walk.bytes)} B (${(r.walk.bytes / r.entries).toFixed(0)} B an entry) in ${r.walk.requests} requests, median ${ms(median(r.walks.map((w) => w.took)))}, again every ${(r.walkSpacingMs / 60_000).toFixed(1)} min; probe ${r.probe.value === null ? 'not answered: a change inside waits for the listing' : `${count(r.probe.bytes)} B in ${r.probe.requests} requests a poll: a file added, trashed or moved in or out within a poll${r.profile === 'deployed' ? ' (a save and a rename inside wait for the listing)' : ' (a rename inside waits for the listing)'}`}`;
    return {
      id: 'shared',
      target: 'what Shared with me adds to an idle minute (a folder of N files shared with the account)',
      size: `${results[0]!.describe}, shared (both profiles)`,
      measured: `${worst.toFixed(1)} KiB/min`,
      goal: `≤ ${GOAL_KIB_PER_MINUTE} KiB/min`,
      pass: worst <= GOAL_KIB_PER_MINUTE,
      details: [...results.map(line), 'a new or ended share, a permission changed or a rename of the shared entry arrives within a poll in both'],
    };
  } finally {
    await cleanup();
  }
});
