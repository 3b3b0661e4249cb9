/**
 * Offline in the host's status, with a real engine made offline by stopping the reference server: since when (the
 * first pass that could not reach the drive, kept while the passes that follow cannot either), how many changes made
 * here wait to go up, the last sync left as it was; the tray's words for it; and once the server answers again, the
 * folder back online said once, in the activity, with what it syncs.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sinceWords, trayMenuTemplate, trayTooltip } from '../../main/app/tray.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { inSync, nextEvent, newHost, untilStatus, write, type TestHost } from './helpers.js';
import { tempDir } from '../helpers/temp.js';

let server: TestServer;
let dataDir: string;
let h: TestHost;

beforeAll(async () => {
  dataDir = tempDir('offline-server');
  server = await startTestServer({ dataDir });
  await server.register('olga@example.com', 'pass-word-1');
  h = newHost('offline');
  write(h.folder, 'notes.txt', 'a few words');
  await h.host.init();
  await h.host.handle('auth:sign-in', { server: server.url, email: 'olga@example.com', password: 'pass-word-1' });
  await untilStatus(h.host, inSync);
});

afterAll(async () => {
  await h?.host.dispose();
  await server?.close();
});

describe('offline in the host and the tray', { timeout: 120_000 }, () => {
  it('says since when and how many changes wait, then back online once with what it syncs', async () => {
    const lastSync = h.host.status().folders[0]!.lastSync;
    const port = Number(new URL(server.url).port);
    await server.close();
    await h.host.handle('sync:now', undefined);
    const first = await untilStatus(h.host, (s) => s.state === 'offline' && s.offline?.waitingUp === 0);
    const since = first.offline!.since;
    expect(first.folders[0]!.offline).toEqual({ since, waitingUp: 0 });
    expect(first.offline).toEqual({ since, waitingUp: 0 });

    // Made here while offline: they wait, counted by each pass that tries again.
    write(h.folder, 'a.txt', 'one');
    write(h.folder, 'b.txt', 'two');
    write(h.folder, 'Later/c.txt', 'three');
    const waiting = await untilStatus(h.host, (s) => s.state === 'offline' && s.offline?.waitingUp === 4);
    const again = nextEvent(h.host, 'state', (s) => s.state === 'offline' && s.offline?.waitingUp === 4);
    await h.host.handle('sync:now', undefined);
    const later = await again;
    // Since the first pass that could not reach the drive, however many followed; the last sync is the last one that did.
    expect(waiting.offline).toEqual({ since, waitingUp: 4 });
    expect(later.offline?.since).toBe(since);
    expect(later.folders[0]!.lastSync).toBe(lastSync);
    expect(later.detail).toBe(`Cannot reach the drive server at 127.0.0.1:${port} — is it running? drivesync tries again on its own.`);

    // The tray says it in short: since when, and what waits.
    const tooltip = `drivesync — Offline since ${sinceWords(since)} · 4 changes wait to go up`;
    expect(trayTooltip(later)).toBe(tooltip);
    expect(sinceWords(since)).toMatch(/^\d{1,2}[:.]\d{2}/);
    const menu = trayMenuTemplate({ status: later, recent: [] }, {} as never);
    expect(menu[0]).toMatchObject({ id: 'status', label: `Offline since ${sinceWords(since)} · 4 changes wait to go up` });

    // The server answers again: said once, with how long it was away and what goes up now.
    server = await startTestServer({ dataDir, port });
    const back = nextEvent(h.host, 'activity', (a) => a.kind === 'back-online');
    await h.host.handle('sync:now', undefined);
    const said = await back;
    expect(said).toMatchObject({ root: h.folder, path: '', kind: 'back-online' });
    expect(said.description).toMatch(/^Back online after \d+ (s|min): syncing 4 changes made here meanwhile\.$/);
    const online = await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced >= 5);
    expect(online.offline).toBeNull();
    expect(online.folders[0]!.offline).toBeUndefined();
    expect(online.folders[0]!.lastSync! > lastSync!).toBe(true);
    expect(trayTooltip(online)).toBe('drivesync — Up to date');
    // Once: the passes that follow say nothing more of it.
    await h.host.handle('sync:now', undefined);
    await untilStatus(h.host, inSync);
    expect((await h.host.handle('activity:list', undefined)).filter((a) => a.kind === 'back-online')).toHaveLength(1);
  });
});
