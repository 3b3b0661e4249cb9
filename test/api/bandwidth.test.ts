import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriveClient } from '../../main/api/client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

describe('bandwidth limit', () => {
  let server: TestServer;
  let token: string;
  const dir = tempDir('bw');
  const source = join(dir, 'source.bin');
  const content = randomBytes(600 * 1024);
  beforeAll(async () => {
    server = await startTestServer();
    ({ token } = await server.register(`bw-${process.pid}@example.com`));
    writeFileSync(source, content);
  });
  afterAll(() => server.close());

  it('sends a small file as one piece unless a limit is in force, and streams a large one; all arrive intact', async () => {
    const small = join(dir, 'small.bin');
    const smallContent = randomBytes(200 * 1024);
    writeFileSync(small, smallContent);
    const upload = async (client: DriveClient, path: string, expected: Buffer) => {
      const chunks: number[] = [];
      const entry = await client.transfers.upload(path, { name: 'x.bin', parentId: null, onData: (chunk) => chunks.push(chunk.length) });
      const target = join(dir, `check-${entry.id}.bin`);
      await client.transfers.download(entry, target, { expectedSize: expected.length });
      expect(readFileSync(target).equals(expected)).toBe(true);
      expect(chunks.reduce((a, b) => a + b, 0)).toBe(expected.length);
      return chunks.length;
    };
    const unlimited = new DriveClient({ origin: server.url, token });
    expect(await upload(unlimited, small, smallContent)).toBe(1);
    expect(await upload(unlimited, source, content)).toBeGreaterThan(1);
    // A limit holds every chunk, so a small file streams too (fast here: 50 MB/s).
    const limited = new DriveClient({ origin: server.url, token, bandwidth: { upBytesPerSecond: 50 * 1024 * 1024 } });
    expect(await upload(limited, small, smallContent)).toBeGreaterThan(1);
  });

  it('holds uploads and downloads to the rate set, and can be lifted while the client lives', async () => {
    const client = new DriveClient({ origin: server.url, token, bandwidth: { upBytesPerSecond: 400 * 1024, downBytesPerSecond: 400 * 1024 } });
    let started = Date.now();
    const entry = await client.transfers.upload(source, { name: 'source.bin', parentId: null });
    const upMs = Date.now() - started;
    started = Date.now();
    const target = join(dir, 'down.bin');
    await client.transfers.download(entry, target, { expectedSize: content.length });
    const downMs = Date.now() - started;
    expect(readFileSync(target).equals(content)).toBe(true);
    // 600 KiB at 400 KiB/s with a one-second burst: at least half a second each way.
    expect(upMs).toBeGreaterThanOrEqual(450);
    expect(downMs).toBeGreaterThanOrEqual(450);

    // Lifted while the client lives: the next transfer is not held (a limit of 1 byte/s would hold it for days).
    client.http.bandwidth.set({ downBytesPerSecond: 1 });
    client.http.bandwidth.set({});
    await client.transfers.download(entry, join(dir, 'again.bin'), { expectedSize: content.length });
    expect(readFileSync(join(dir, 'again.bin')).equals(content)).toBe(true);
  });
});
