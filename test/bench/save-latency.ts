/**
 * docs/design.md §7: a saved local file is on the server within 1 s (median).
 *
 * A SyncEngine is started (first pass, then the watcher and the poll timer, as the app runs it) on a folder that is
 * already synced. Then, BENCH_SAVES times, a new small file is written and the server's listing is asked for its
 * name (`query=`) every 20 ms until it shows up; the time from just before the write to the answer that lists it
 * is one sample. Between saves the engine is let settle.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  benchEngine,
  benchmarkMain,
  cleanup,
  layout,
  log,
  ms,
  percentile,
  plural,
  SIZES,
  sleep,
  startBenchServer,
  tempDir,
  writeLayout,
  type BenchResult,
} from './common.js';

const POLL_MS = 20;
const GIVE_UP_MS = 30_000;

benchmarkMain(async (): Promise<BenchResult> => {
  try {
    const server = await startBenchServer();
    const account = await server.register('save@example.com');
    const root = tempDir('save-root');
    const tree = layout(50);
    await writeLayout(root, tree, false);
    const engine = benchEngine(root, server.url, account.token);
    let passes = 0;
    engine.on('pass', () => passes++);
    const samples: number[] = [];
    const misses: string[] = [];
    try {
      const first = await engine.start();
      if (!first.inSync) throw new Error(`the first pass did not finish in sync (${first.failed[0]?.message ?? ''})`);
      log(`engine started; first pass synced ${plural(first.done, 'item')}`);
      const headers = { authorization: `Bearer ${account.token}`, accept: 'application/json' };
      const onServer = async (name: string) => {
        const response = await fetch(`${server.url}/api/v1/drive/file-entries?query=${encodeURIComponent(name)}&perPage=50`, { headers });
        const body = (await response.json()) as { data: Array<{ name: string }> };
        return body.data.some((e) => e.name === name);
      };
      for (let i = 0; i < SIZES.saves; i++) {
        const name = `saved-${i}-${randomBytes(4).toString('hex')}.txt`;
        // Alternate between the root and a folder two levels down.
        const folder = i % 2 === 0 ? '' : tree.folders[tree.folders.length - 1]!.path;
        const abs = join(root, ...folder.split('/').filter(Boolean), name);
        const passesBefore = passes;
        const start = performance.now();
        await writeFile(abs, `saved file ${i}\n`);
        let seen = false;
        for (let next = start; performance.now() - start < GIVE_UP_MS; ) {
          if (await onServer(name)) {
            seen = true;
            break;
          }
          next += POLL_MS;
          await sleep(Math.max(0, next - performance.now()));
        }
        const took = performance.now() - start;
        if (seen) samples.push(took);
        else misses.push(name);
        log(`save ${i + 1}: ${seen ? ms(took) : `not on the server after ${GIVE_UP_MS / 1000} s`}`);
        // Let the pass that sent it finish, then leave the engine idle a moment, so saves do not overlap.
        for (let waited = 0; passes === passesBefore && waited < 5000; waited += 20) await sleep(20);
        await sleep(300 + Math.floor(Math.random() * 200));
      }
    } finally {
      await engine.stop();
    }
    if (samples.length === 0) throw new Error('no save reached the server');
    const p50 = percentile(samples, 50);
    const p90 = percentile(samples, 90);
    return {
      id: 'save',
      target: 'a saved local file is on the server ≤ 1 s (p50)',
      size: `${SIZES.saves} saves into a synced folder of ${tree.describe}; listing polled every ${POLL_MS} ms`,
      measured: `p50 ${ms(p50)}, p90 ${ms(p90)}`,
      goal: 'p50 ≤ 1000 ms',
      pass: misses.length === 0 ? p50 <= 1000 : false,
      details: [
        `p50 ${ms(p50)}, p90 ${ms(p90)}, min ${ms(Math.min(...samples))}, max ${ms(Math.max(...samples))}`,
        `samples: ${samples.map((s) => s.toFixed(0)).join(', ')} ms` + (misses.length > 0 ? `; never arrived: ${misses.join(', ')}` : ''),
        'the engine waits for a file to hold still 300 ms (size and mtime) and debounces events 50 ms',
      ],
    };
  } finally {
    await cleanup();
  }
});
