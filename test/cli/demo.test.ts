import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { allFiles, cleanUp, cli, expectOneLineError, spawnCli, tempDir } from './helpers.js';

afterAll(() => cleanUp());

describe('drivesync demo', () => {
  it('reaches `in sync`, and its printed link downloads the sample file; SIGTERM stops it cleanly', async () => {
    const home = tempDir();
    const demo = spawnCli(['demo'], { home });
    await demo.waitFor(/^in sync$/m, 30_000);
    await demo.waitFor(/^Ctrl-C stops the demo/m);
    const out = demo.stdout();
    const url = /^server:\s+(http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)?.[1];
    const email = /^e-mail:\s+(\S+@\S+)$/m.exec(out)?.[1];
    const password = /^password:\s+(\S+)$/m.exec(out)?.[1];
    const folder = /^folder:\s+(\/\S+)$/m.exec(out)?.[1];
    const link = /^link:\s+(http:\/\/127\.0\.0\.1:\d+\/drive\/s\/\S+)/m.exec(out)?.[1];
    expect({ url, email, password, folder, link }, out).toEqual({
      url: expect.any(String),
      email: expect.any(String),
      password: expect.any(String),
      folder: expect.any(String),
      link: expect.stringContaining(`${url}/drive/s/`),
    });
    // Its data and folder live under the state dir.
    expect(folder!.startsWith(home)).toBe(true);
    for (const sample of ['hello.txt', 'notes.md', 'Projects/plan.txt']) expect(existsSync(join(folder!, sample))).toBe(true);
    expect(out).toMatch(/try next:/);

    // The printed commands work pasted into a new shell anywhere: another folder, no drivesync on PATH, no npx.
    const statusCommand = /^ {2}see the state:\s+(.+)$/m.exec(out)?.[1];
    const linkCommand = /^ {2}share another file by link:\s+(.+)$/m.exec(out)?.[1];
    expect(statusCommand, out).toMatch(/^DRIVESYNC_HOME=\S+ \S+ \S+ status$/);
    expect(linkCommand, out).toMatch(/ link \S+notes\.md --password SECRET$/);
    const elsewhere = tempDir();
    const shell = (command: string) =>
      spawnSync('sh', ['-c', command], { cwd: elsewhere, env: { PATH: '/usr/bin:/bin', HOME: elsewhere }, encoding: 'utf8' });
    const status = shell(statusCommand!);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toContain(`account:   ${email}`);
    expect(status.stdout).toMatch(/signed in: yes/);
    const linked = shell(linkCommand!);
    expect(linked.status, linked.stderr).toBe(0);
    expect(linked.stdout).toMatch(new RegExp(`^${url}/drive/s/\\S+$`, 'm'));

    // The link serves the sample file, without any token.
    const answer = await fetch(link!);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe(readFileSync(join(folder!, 'hello.txt'), 'utf8'));

    // The printed account works.
    const login = await fetch(`${url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password, token_name: 'test' }),
    });
    expect(login.status).toBe(200);

    // Without a keychain, the demo's own state dir holds its token while it runs.
    expect(existsSync(join(home, 'demo', 'home', 'token.json'))).toBe(true);
    const finished = await demo.stop('SIGTERM');
    expect(finished.code, finished.stderr).toBe(0);
    expect(finished.stdout).toContain('demo stopped');
    expect(finished.stderr).not.toMatch(/^\s+at /m);
    await expect(fetch(link!)).rejects.toThrow();
    // The demo's token went with its server.
    expect(existsSync(join(home, 'demo', 'home', 'token.json'))).toBe(false);
    expect(existsSync(join(home, 'demo', 'home', 'config.json'))).toBe(true);
    // The demo password is printed, never logged.
    for (const file of allFiles(home)) {
      if (file.path.endsWith('.log')) expect(file.content.toString('latin1')).not.toContain(password!);
    }
  });
});

describe.concurrent('drivesync demo, failures', () => {
  it('refuses to start while another demo of the same state dir runs, and takes no arguments', async () => {
    const home = tempDir();
    mkdirSync(join(home, 'demo'), { recursive: true });
    // This test's own process stands for the running demo.
    writeFileSync(join(home, 'demo', 'demo.pid'), String(process.pid));
    const busy = await cli(['demo'], { home });
    expect(busy.code).toBe(1);
    expectOneLineError(busy, new RegExp(`a demo is already running \\(process ${process.pid}\\)`));
    const usage = await cli(['demo', 'now'], { home });
    expect(usage.code).toBe(2);
    expectOneLineError(usage);
  });
});
