// A 200 MB file up and down through the client against the reference server, verified by sha256 (hashed as a
// stream), with the process's memory sampled throughout: a client that held the file in memory would blow the bound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { DriveClient, type TransferProgress } from '../../main/api/index.js';
import { tempDir } from '../helpers/temp.js';

const MB = 1024 * 1024;
const SIZE_MB = 200;
const SIZE = SIZE_MB * MB;
/** Growth of rss over the baseline allowed during a transfer; holding the file once would be 200 MB. */
const RSS_BOUND = 150 * MB;
const ARRAY_BUFFERS_BOUND = 100 * MB;

let server: TestServer;
let work: string;
let source: string;
let sourceHash: string;

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/** Samples memory every 20 ms while `run` goes; answers the peak growth over the baseline taken just before. */
async function measured<T>(run: () => Promise<T>): Promise<{ result: T; rss: number; arrayBuffers: number; samples: number }> {
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakBuffers = base.arrayBuffers;
  let samples = 0;
  const sample = () => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakBuffers = Math.max(peakBuffers, now.arrayBuffers);
    samples++;
  };
  const timer = setInterval(sample, 20);
  try {
    const result = await run();
    sample();
    return { result, rss: peakRss - base.rss, arrayBuffers: peakBuffers - base.arrayBuffers, samples };
  } finally {
    clearInterval(timer);
  }
}

beforeAll(async () => {
  work = tempDir('large');
  server = await startTestServer({ dataDir: join(work, 'server') });
  source = join(work, 'source.bin');
  const block = randomBytes(MB);
  const hash = createHash('sha256');
  const out = createWriteStream(source);
  for (let i = 0; i < SIZE_MB; i++) {
    // Each block differs a little, so a mix-up of blocks would change the hash.
    block.writeUInt32BE(i, 0);
    hash.update(block);
    if (!out.write(Buffer.from(block))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  sourceHash = hash.digest('hex');
}, 60_000);

afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('a 200 MB file', () => {
  it('goes up and comes back intact, streamed: memory growth stays far below the file size', async () => {
    expect((await stat(source)).size).toBe(SIZE);
    expect(await sha256(source)).toBe(sourceHash);

    const { token } = await server.register('large@example.com');
    const client = new DriveClient({ origin: server.url, token });

    const upProgress: TransferProgress[] = [];
    const up = await measured(() =>
      client.transfers.upload(source, { name: 'large.bin', parentId: null, onProgress: (p) => upProgress.push(p) }),
    );
    const entry = up.result;
    expect(entry.file_size).toBe(SIZE);
    expect(upProgress.at(-1)).toEqual({ transferred: SIZE, total: SIZE });
    expect(upProgress.length).toBeGreaterThan(10);
    expect(up.samples).toBeGreaterThan(5);

    const dest = join(work, 'downloaded.bin');
    const downProgress: TransferProgress[] = [];
    const down = await measured(() =>
      client.transfers.download(entry, dest, { expectedSize: SIZE, onProgress: (p) => downProgress.push(p) }),
    );
    expect(down.result).toBe(SIZE);
    expect(downProgress.at(-1)).toEqual({ transferred: SIZE, total: SIZE });
    expect(await sha256(dest)).toBe(sourceHash);

    const report = (label: string, m: { rss: number; arrayBuffers: number }) =>
      `${label}: rss +${(m.rss / MB).toFixed(1)} MB, arrayBuffers +${(m.arrayBuffers / MB).toFixed(1)} MB`;
    console.log(report('upload', up), '|', report('download', down));
    expect(up.rss, report('upload', up)).toBeLessThan(RSS_BOUND);
    expect(down.rss, report('download', down)).toBeLessThan(RSS_BOUND);
    expect(up.arrayBuffers, report('upload', up)).toBeLessThan(ARRAY_BUFFERS_BOUND);
    expect(down.arrayBuffers, report('download', down)).toBeLessThan(ARRAY_BUFFERS_BOUND);
  }, 60_000);
});
