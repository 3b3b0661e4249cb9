/**
 * docs/design.md §7: a 1 GiB file uploads and downloads with constant memory.
 *
 * A BENCH_BIG_MB file is uploaded with `client.transfers.upload` and downloaded again with
 * `client.transfers.download`, to a server in another process. This process (run with --expose-gc) samples its
 * own RSS every 50 ms; the figure is the peak growth over the RSS measured right before each transfer. "Constant"
 * is read as: under 100 MB of growth, whatever the file's size.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { DriveClient } from '../../main/api/client.js';
import {
  benchmarkMain,
  cleanup,
  collectGarbage,
  log,
  mb,
  MiB,
  rssSampler,
  secs,
  SIZES,
  startBenchServer,
  tempDir,
  timed,
  type BenchResult,
} from './common.js';

const LIMIT_MB = 100;

async function writeBigFile(path: string, mebibytes: number): Promise<void> {
  const out = createWriteStream(path);
  const block = randomBytes(MiB);
  for (let i = 0; i < mebibytes; i++) {
    block.writeUInt32LE(i, 0); // no two blocks alike
    if (!out.write(Buffer.from(block))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: MiB })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

benchmarkMain(async (): Promise<BenchResult> => {
  if (!(globalThis as { gc?: unknown }).gc) throw new Error('run with --expose-gc (run.ts does)');
  try {
    const server = await startBenchServer();
    const account = await server.register('big@example.com');
    const client = new DriveClient({ origin: server.url, token: account.token });
    const dir = tempDir('big');
    const source = join(dir, 'big.bin');
    const { ms: writeMs } = await timed(() => writeBigFile(source, SIZES.bigMb));
    const bytes = (await stat(source)).size;
    log(`wrote ${mb(bytes)} in ${secs(writeMs)}`);

    await collectGarbage();
    const beforeUp = process.memoryUsage.rss();
    let sampler = rssSampler(50);
    const { ms: upMs, value: entry } = await timed(() => client.transfers.upload(source, { name: 'big.bin', parentId: null }));
    const up = sampler.stop();
    if (entry.file_size !== bytes) throw new Error(`the server stored ${entry.file_size} bytes of ${bytes}`);

    await collectGarbage();
    const beforeDown = process.memoryUsage.rss();
    const destination = join(dir, 'big.down');
    sampler = rssSampler(50);
    const { ms: downMs, value: received } = await timed(() => client.transfers.download(entry, destination, { expectedSize: bytes }));
    const down = sampler.stop();
    if (received !== bytes) throw new Error(`downloaded ${received} bytes of ${bytes}`);
    const [a, b] = [await sha256(source), await sha256(destination)];
    if (a !== b) throw new Error('the downloaded file differs from the uploaded one');

    const upGrowth = up.peak - beforeUp;
    const downGrowth = down.peak - beforeDown;
    const worst = Math.max(upGrowth, downGrowth);
    const rate = (ms: number) => `${(bytes / MiB / (ms / 1000)).toFixed(0)} MB/s`;
    return {
      id: 'bigfile',
      target: `${SIZES.bigMb} MiB up and down with constant memory`,
      size: `${mb(bytes)} file; RSS sampled every 50 ms`,
      measured: `+${mb(upGrowth)} up, +${mb(downGrowth)} down`,
      goal: `growth < ${LIMIT_MB} MB`,
      pass: worst < LIMIT_MB * MiB,
      details: [
        `upload ${secs(upMs)} (${rate(upMs)}): RSS ${mb(beforeUp)} before, peak ${mb(up.peak)} (${up.samples} samples)`,
        `download ${secs(downMs)} (${rate(downMs)}): RSS ${mb(beforeDown)} before, peak ${mb(down.peak)} (${down.samples} samples)`,
        'content checked with sha256 after both transfers; the server runs in another process',
      ],
    };
  } finally {
    await cleanup();
  }
});
