import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriveClient } from '../../main/api/client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('bandwidth limit', () => {
  let server: TestServer;
  let token: string;
  const dir = mkdtempSync(join(tmpdir(), 'drivesync-bw-'));
  const source = join(dir, 'source.bin');
  const content = randomBytes(600 * 1024);
  beforeAll(async () => {
    server = await startTestServer();
    ({ token } = await server.register(`bw-${process.pid}@example.com`));
    writeFileSync(source, content);
  });
  afterAll(() => server.close());

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
