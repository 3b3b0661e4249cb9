/**
 * A link's password through the host: the drive keeps only its hash and resets a password an update does not carry,
 * so saving a link's other settings must not drop it. The host sends again the password it set, refuses an update
 * when it does not know the password (set elsewhere), and removes it only when asked to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriveClient } from '../../main/api/client.js';
import { dispatch } from '../../main/app/host/dispatch.js';
import { PROFILES, startTestServer, type TestServer } from '../helpers/server.js';
import { inSync, newHost, untilStatus, write, type TestHost } from './helpers.js';

const EMAIL = 'lina@example.com';
const PASSWORD = 'pass-word-1';

/** What the public link answers without a password, and with each one given. */
async function opens(url: string, password?: string): Promise<{ status: number; text: string }> {
  const response = await fetch(password === undefined ? url : `${url}?password=${encodeURIComponent(password)}`);
  return { status: response.status, text: await response.text() };
}

describe.each(PROFILES)('a link password through the host (%s profile)', { timeout: 60_000 }, (profile) => {
  let server: TestServer;
  let h: TestHost;
  const ref = () => ({ root: h.folder, path: 'report.txt' });

  beforeAll(async () => {
    server = await startTestServer({ profile });
    await server.register(EMAIL, PASSWORD);
    h = newHost(`links-${profile}`);
    write(h.folder, 'report.txt', 'quarterly numbers');
    await h.host.init();
    expect(await dispatch(h.host, 'auth:sign-in', { server: server.url, email: EMAIL, password: PASSWORD })).toMatchObject({ ok: true });
    await untilStatus(h.host, inSync);
  });
  afterAll(async () => {
    await h?.host.dispose();
    await server?.close();
  });

  it('keeps the password when the other settings are saved: the public link still asks for it', async () => {
    const created = await h.host.handle('link:create', { ...ref(), password: 'open-sesame', allowDownload: true, allowEdit: false });
    expect(created).toMatchObject({ hasPassword: true, passwordKnown: true, allowEdit: false });
    const expires = new Date(Date.now() + 30 * 86_400_000).toISOString();
    // No password in the update: "keep the one it has".
    const updated = await h.host.handle('link:update', { ...ref(), expiresAt: expires, allowDownload: true, allowEdit: true });
    expect(updated).toMatchObject({ url: created.url, hasPassword: true, passwordKnown: true, allowEdit: true });
    expect(Date.parse(updated.expiresAt!)).toBeCloseTo(Date.parse(expires), -4);
    expect(await h.host.handle('link:get', ref())).toMatchObject({ hasPassword: true, passwordKnown: true, allowEdit: true });

    const without = await opens(created.url);
    expect(without.status).toBe(401);
    expect(without.text).toContain('This link is protected');
    expect(await opens(created.url, 'open-sesame')).toEqual({ status: 200, text: 'quarterly numbers' });
  });

  it('refuses to save other settings over a password it does not know, and keeps that password', async () => {
    // Set on another computer (or by the drive's website): the drive answers a different hash.
    const login = await server.call(null, 'POST', '/api/v1/auth/login', { email: EMAIL, password: PASSWORD, token_name: 'elsewhere' });
    const other = new DriveClient({ origin: server.url, token: (login.body.user ?? login.body.bootstrapData.user).access_token });
    const [entry] = await collect(other.entries.list({ query: 'report.txt' }));
    await other.links.update(entry!.id, { password: 'set-elsewhere', allowDownload: true });
    const seen = await h.host.handle('link:get', ref());
    expect(seen).toMatchObject({ hasPassword: true, passwordKnown: false });

    const refused = await dispatch(h.host, 'link:update', { ...ref(), allowDownload: true, allowEdit: true });
    expect(refused).toMatchObject({ ok: false, error: { kind: 'invalid', fields: { password: 'Enter the link’s current password to keep it.' } } });
    expect((await opens(seen!.url)).status).toBe(401);
    expect(await opens(seen!.url, 'set-elsewhere')).toEqual({ status: 200, text: 'quarterly numbers' });

    // Given again, it is kept, and known from then on.
    const given = await h.host.handle('link:update', { ...ref(), password: 'set-elsewhere', allowDownload: true, allowEdit: false });
    expect(given).toMatchObject({ hasPassword: true, passwordKnown: true, allowEdit: false });
    const again = await h.host.handle('link:update', { ...ref(), allowDownload: true, allowEdit: true });
    expect(again).toMatchObject({ hasPassword: true, passwordKnown: true, allowEdit: true });
    expect((await opens(seen!.url)).status).toBe(401);
    expect(await opens(seen!.url, 'set-elsewhere')).toEqual({ status: 200, text: 'quarterly numbers' });
  });

  it('removes the password only when asked to', async () => {
    const link = await h.host.handle('link:get', ref());
    const removed = await h.host.handle('link:update', { ...ref(), password: null, allowDownload: true, allowEdit: true });
    expect(removed).toMatchObject({ url: link!.url, hasPassword: false, passwordKnown: false, allowEdit: true });
    expect(await opens(link!.url)).toEqual({ status: 200, text: 'quarterly numbers' });
    // Saving other settings of a link without a password sends none.
    expect(await h.host.handle('link:update', { ...ref(), allowDownload: true, allowEdit: false })).toMatchObject({ hasPassword: false, allowEdit: false });
  });
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
