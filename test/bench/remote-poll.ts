/**
 * docs/design.md §7: a no-change remote poll of 100,000 entries takes at most 1.2× the listing requests alone.
 *
 * The server's database is seeded directly with the entries (one transaction). "The engine's listing" is what
 * SyncEngine.listRemote does: `client.entries.tree({ perPage: 1000 })` consumed fully, each entry turned into a
 * RemoteItem in a Map. "The listing requests alone" fetch the same pages with fetch() and JSON.parse, nothing else.
 * Both are warmed up once and then run alternately; the medians are compared. The breakdown (got, JSON.parse,
 * the answer's check, the conversion) says where any difference goes.
 */
import { DriveClient } from '../../main/api/client.js';
import { EntryListResponse } from '../../main/api/checks.js';
import { toRemoteItem } from '../../main/sync/remote/entry.js';
import type { RemoteId, RemoteItem } from '../../main/sync/model/types.js';
import type { FileEntry } from '../../main/api/schemas.js';
import {
  benchmarkMain,
  cleanup,
  count,
  layout,
  log,
  measured,
  median,
  ms,
  ratio,
  secs,
  seedServer,
  SIZES,
  startBenchServer,
  timed,
  type BenchResult,
} from './common.js';

const PER_PAGE = 1000;

interface PageBody {
  data: FileEntry[];
  next_page?: number | null;
}

benchmarkMain(async (): Promise<BenchResult> => {
  try {
    const server = await startBenchServer();
    const account = await server.register('poll@example.com');
    const tree = layout(SIZES.files);
    const { ms: seedMs } = await timed(async () => seedServer(server.dataDir, account.id, tree));
    const total = tree.files.length + tree.folders.length;
    log(`seeded ${count(total)} entries in ${secs(seedMs)}`);
    const client = new DriveClient({ origin: server.url, token: account.token });
    const headers = { authorization: `Bearer ${account.token}`, accept: 'application/json' };

    /** What the engine does each poll (SyncEngine.listRemote). */
    const engineListing = async () => {
      const remote = new Map<RemoteId, RemoteItem>();
      for await (const entry of client.entries.tree({ rootId: null, perPage: PER_PAGE })) {
        if (entry.deleted_at) continue;
        remote.set(entry.id, toRemoteItem(entry, null));
      }
      return remote.size;
    };
    /** The same pages, fetched and parsed, nothing more. Keeps the texts when asked (for the breakdown). */
    const bareListing = async (keep?: string[]) => {
      let n = 0;
      for (let page: number | null = 1; page !== null; ) {
        const response = await fetch(`${server.url}/api/v1/drive/file-entries?page=${page}&perPage=${PER_PAGE}`, { headers });
        const text = await response.text();
        keep?.push(text);
        const body = JSON.parse(text) as PageBody;
        n += body.data.length;
        page = body.data.length === 0 ? null : (body.next_page ?? null);
      }
      return n;
    };
    /** The same pages through the client's got instance, parsed, without the schema check. */
    const gotListing = async () => {
      let n = 0;
      for (let page: number | null = 1; page !== null; ) {
        const searchParams = { page, perPage: PER_PAGE };
        const text = await client.http.api('drive/file-entries', { searchParams, responseType: 'text' }).text();
        const body = JSON.parse(text) as PageBody;
        n += body.data.length;
        page = body.data.length === 0 ? null : (body.next_page ?? null);
      }
      return n;
    };

    const texts: string[] = [];
    const warm = [await engineListing(), await bareListing(texts), await gotListing()];
    if (warm.some((n) => n !== total)) throw new Error(`listings counted ${warm.join(', ')} entries, expected ${total}`);
    const pid = server.process.pid;
    const runs = { engine: [] as Run[], bare: [] as Run[], got: [] as Run[] };
    const pairs: number[] = [];
    for (let rep = 0; rep < SIZES.reps; rep++) {
      // Each pair runs back to back, so a change in the machine's load hits both sides alike.
      runs.bare.push(await measured(pid, () => bareListing()));
      runs.engine.push(await measured(pid, engineListing));
      runs.got.push(await measured(pid, gotListing));
      pairs.push(runs.engine.at(-1)!.ms / runs.bare.at(-1)!.ms);
      log(
        `rep ${rep + 1}: requests alone ${describeRun(runs.bare.at(-1)!)}; engine listing ${describeRun(runs.engine.at(-1)!)}; ` +
          `got+parse ${describeRun(runs.got.at(-1)!)}`,
      );
    }
    const med = (list: Run[], key: 'ms' | 'cpuMs' | 'serverCpuMs') => median(list.map((r) => r[key] ?? NaN));
    const engine = med(runs.engine, 'ms');
    const bare = med(runs.bare, 'ms');
    const viaGot = med(runs.got, 'ms');
    const best = (list: Run[]) => Math.min(...list.map((x) => x.ms));

    // The client-side steps on their own, over the pages as received.
    const parseMs = median(Array.from({ length: SIZES.reps }, () => timedSync(() => texts.map((t) => JSON.parse(t) as unknown))));
    const bodies = texts.map((t) => JSON.parse(t) as PageBody);
    const checkMs = median(Array.from({ length: SIZES.reps }, () => timedSync(() => bodies.map((b) => EntryListResponse.test(b)))));
    const convertMs = median(
      Array.from({ length: SIZES.reps }, () =>
        timedSync(() => {
          const remote = new Map<RemoteId, RemoteItem>();
          for (const body of bodies) for (const entry of body.data) remote.set(entry.id, toRemoteItem(entry, null));
          return remote;
        }),
      ),
    );
    const bytes = texts.reduce((sum, t) => sum + Buffer.byteLength(t), 0);
    const r = median(pairs);
    return {
      id: 'poll',
      target: 'no-change remote poll ≤ 1.2× the listing requests',
      size: `${count(total)} entries (${tree.describe}); ${texts.length} pages of ${PER_PAGE}`,
      measured: ratio(r),
      goal: '≤ 1.20×',
      pass: r <= 1.2,
      details: [
        `ratio = median of ${pairs.length} back-to-back pairs (${pairs.map(ratio).join(', ')}); ` +
          `ratio of the medians ${ratio(engine / bare)}, of the best runs ${ratio(best(runs.engine) / best(runs.bare))}`,
        `engine listing median ${ms(engine)}: ` +
          `client CPU ${ms(med(runs.engine, 'cpuMs'))}, server CPU ${ms(med(runs.engine, 'serverCpuMs'))}`,
        `requests alone (fetch + JSON.parse) median ${ms(bare)}: ` +
          `client CPU ${ms(med(runs.bare, 'cpuMs'))}, server CPU ${ms(med(runs.bare, 'serverCpuMs'))}`,
        `same pages through the client's got + JSON.parse, no check: median ${ms(viaGot)}, client CPU ${ms(med(runs.got, 'cpuMs'))}`,
        `client-side steps over all ${texts.length} pages (${(bytes / 2 ** 20).toFixed(1)} MB of JSON): JSON.parse ${ms(parseMs)}, ` +
          `the EntryListResponse check ${ms(checkMs)}, toRemoteItem into a Map ${ms(convertMs)}`,
      ],
    };
  } finally {
    await cleanup();
  }
});

type Run = Awaited<ReturnType<typeof measured<number>>>;

function describeRun(run: Run): string {
  return `${ms(run.ms)} (client CPU ${ms(run.cpuMs)}, server CPU ${run.serverCpuMs === null ? '?' : ms(run.serverCpuMs)})`;
}

function timedSync(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}
