/**
 * A folder of 10,000 files renamed while the engine watches (the issue that made live mode equal a full pass):
 * requests sent, bytes uploaded and the time until the drive shows the new name with nothing left to do.
 * Goal: one request, zero bytes, under 2 s.
 *
 * The engine is started on the folder (its first pass uploads everything), let settle, then the folder is renamed
 * with one rename(2). The time runs from the rename until the engine is quiet and the server lists the new name.
 */
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { DriveClient } from '../../main/api/client.js';
import { benchEngine, benchmarkMain, cleanup, count, log, ms, plural, sleep, startBenchServer, tempDir, type BenchResult } from './common.js';
import { mkdirSync, writeFileSync } from 'node:fs';

const FILES = Number(process.env.BENCH_RENAME_FILES ?? (process.env.BENCH_QUICK ? 1000 : 10_000));

benchmarkMain(async (): Promise<BenchResult> => {
  try {
    const server = await startBenchServer();
    const account = await server.register('rename@example.com');
    const root = tempDir('rename-root');
    const folder = join(root, 'photos-2026');
    mkdirSync(folder);
    for (let i = 0; i < FILES; i++) writeFileSync(join(folder, `img-${i}.jpg`), `image ${i} `.repeat(20));
    const client = new DriveClient({ origin: server.url, token: account.token });
    const requests: string[] = [];
    const http = client.http as unknown as { api: typeof client.http.api; raw: typeof client.http.raw };
    const counted = { hooks: { beforeRequest: [(o: { method: string; url?: URL | string }) => void requests.push(`${o.method} ${new URL(String(o.url)).pathname}`)] } };
    http.api = client.http.api.extend(counted);
    http.raw = client.http.raw.extend(counted);
    const engine = benchEngine(root, server.url, account.token, client);
    let uploaded = 0;
    engine.on('transfer', (event) => {
      if (event.direction === 'up' && event.total !== undefined && event.transferred === event.total) uploaded += event.total;
    });
    try {
      const started = performance.now();
      const first = await engine.start();
      if (!first.inSync) throw new Error(`the first pass did not finish in sync (${first.failed[0]?.message ?? ''})`);
      log(`initial sync of ${plural(FILES, 'file')}: ${ms(performance.now() - started)}`);
      while (!engine.isQuiet()) await sleep(20);
      const mark = requests.length;
      uploaded = 0;
      const headers = { authorization: `Bearer ${account.token}`, accept: 'application/json' };
      const listed = async (name: string) => {
        const response = await fetch(`${server.url}/api/v1/drive/file-entries?query=${encodeURIComponent(name)}&perPage=50`, { headers });
        const body = (await response.json()) as { data: Array<{ name: string }> };
        return body.data.some((e) => e.name === name);
      };
      const start = performance.now();
      await rename(folder, join(root, 'photos-2026-trip'));
      let took = Number.NaN;
      for (let waited = 0; waited < 60_000; waited += 20) {
        await sleep(20);
        if (await listed('photos-2026-trip')) {
          took = performance.now() - start;
          break;
        }
      }
      // Anything the engine would still send (it scans the folder in full once the burst has settled) shows up now.
      for (let waited = 0; waited < 60_000 && !engine.isQuiet(); waited += 20) await sleep(20);
      const quiet = performance.now() - start;
      const sent = requests.slice(mark).filter((r) => !r.startsWith('GET /api/v1/drive/file-entries'));
      log(`requests after the rename: ${sent.join(', ') || 'none'}`);
      const pass = sent.length === 1 && uploaded === 0 && took < 2000;
      return {
        id: 'rename',
        target: 'a folder renamed while watching: one request, zero bytes, on the drive < 2 s',
        size: `${count(FILES)} files in the folder`,
        measured: `${plural(sent.length, 'request')}, ${count(uploaded)} bytes up, ${Number.isNaN(took) ? 'not in sync after 60 s' : ms(took)}`,
        goal: '1 request, 0 bytes, < 2000 ms',
        pass,
        details: [
          `requests: ${sent.join(', ')}`,
          `the drive listed the new name after ${ms(took)}; the engine was quiet after ${ms(quiet)} (its full scan once the burst settled included)`,
          'a path is reported once it holds still 300 ms; what acts on the old path waiting for the folder to settle is dropped once the new one is seen',
        ],
      };
    } finally {
      await engine.stop();
    }
  } finally {
    await cleanup();
  }
});
