import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localTree, newAccount, sorted, type Account, SCENARIO_CASES } from '../helpers/sync.js';

describe.each(SCENARIO_CASES)('sync scenarios: replacing a file keeps what was attached to it (%s, %s)', (mode, profile) => {
  let account: Account;
  beforeEach(async () => {
    account = await newAccount(undefined, { mode, profile });
  });
  afterEach(() => account.close());

  const entryNamed = async (name: string) => {
    for await (const e of account.client.entries.list({})) if (e.name === name) return e;
    throw new Error(`no entry ${name}`);
  };
  const ids = async (filter: { starredOnly?: boolean; deletedOnly?: boolean }) => {
    const out: number[] = [];
    for await (const e of account.client.entries.list(filter)) out.push(e.id);
    return out;
  };

  it('an edited file becomes a new entry with the old description, star, shares and link settings; the old one is in the trash', async () => {
    const friendEmail = `friend-${process.pid}-${Date.now()}@example.com`;
    await account.server.register(friendEmail);
    const a = account.computer('alpha');
    writeFileSync(join(a.root, 'report.txt'), 'first version');
    await a.sync();
    const old = await entryNamed('report.txt');
    await account.client.entries.update(old.id, { description: 'quarterly numbers' });
    await account.client.entries.star([old.id]);
    await account.client.sharing.share(old.id, [friendEmail], ['view', 'download']);
    await account.client.links.create(old.id, { allowDownload: true, allowEdit: false, expiresAt: '2099-01-01T00:00:00Z' });
    const notices: string[] = [];
    a.engine.on('notice', (message) => notices.push(message));

    writeFileSync(join(a.root, 'report.txt'), 'second version, longer');
    expect((await a.sync()).inSync).toBe(true);

    const fresh = await entryNamed('report.txt');
    expect(fresh.id).not.toBe(old.id);
    expect(fresh.description).toBe('quarterly numbers');
    expect(fresh.users?.filter((u) => u.owns_entry !== true).map((u) => [u.email, u.entry_permissions])).toEqual([
      [friendEmail, { view: true, edit: false, download: true }],
    ]);
    expect(await ids({ starredOnly: true })).toEqual([fresh.id]);
    const link = await account.client.links.get(fresh.id);
    expect(link?.link.expires_at?.startsWith('2099-01-01')).toBe(true);
    expect(link?.link.allow_download).toBe(true);
    expect(notices.some((n) => n.includes(account.client.links.publicUrl(link!.link)))).toBe(true);
    expect(await ids({ deletedOnly: true })).toEqual([old.id]);
    expect(sorted(await account.remoteTree())).toEqual(sorted(localTree(a.root)));
  });

  it('a password-protected link is not carried over, and the user is told', async () => {
    const a = account.computer('alpha');
    writeFileSync(join(a.root, 'secret.txt'), 'v1');
    await a.sync();
    const old = await entryNamed('secret.txt');
    await account.client.links.create(old.id, { password: 'hunter22' });
    const notices: string[] = [];
    a.engine.on('notice', (message) => notices.push(message));
    writeFileSync(join(a.root, 'secret.txt'), 'v2 with more');
    await a.sync();
    const fresh = await entryNamed('secret.txt');
    expect(await account.client.links.get(fresh.id)).toBeNull();
    expect(notices).toEqual([expect.stringMatching(/secret\.txt.*password-protected/)]);
  });

  it('14. a connection dropped mid-upload fails that item; the next pass uploads it once', async () => {
    const a = account.computer('alpha');
    writeFileSync(join(a.root, 'one.txt'), 'one');
    writeFileSync(join(a.root, 'two.txt'), 'two');
    account.server.faults.set('drop=1,match=POST:/api/v1/uploads,count=1');
    const first = await a.sync();
    expect(first.failed).toHaveLength(1);
    expect(first.failed[0]!.message).toMatch(/POST \/uploads/);
    expect((await a.sync()).inSync).toBe(true);
    expect(sorted(await account.remoteTree())).toEqual({ 'one.txt': 'one', 'two.txt': 'two' });
    expect(account.requests.filter((r) => r === 'POST /uploads')).toHaveLength(3);
  });
});
