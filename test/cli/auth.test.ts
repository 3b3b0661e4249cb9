import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { allFiles, cli, cliOnTty, ROOT, expectOneLineError, inKeyring, newAccount, signedInHome, statusJson, tempDir, useCliTestServer } from './helpers.js';

const server = useCliTestServer();

describe.concurrent('register, login, logout (no keychain: the fallback file)', () => {
  it('register signs in, says where the token goes before storing it 0600, and keeps no secret in the config', async () => {
    const home = tempDir();
    const email = `cli-register-${process.pid}@example.com`;
    const result = await cli(['register', '--server', server.url, '--email', email, '--password', 'a-long-password'], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`registered and signed in as ${email} on ${server.url}`);
    const tokenFile = join(home, 'token.json');
    // The user is told that no keychain answered and where the token goes.
    expect(result.stderr).toMatch(/^drivesync: no OS keychain answered \(.+\); storing the token in .+token\.json, readable only by you\n$/);
    expect(result.stderr).toContain(tokenFile);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const { token } = JSON.parse(readFileSync(tokenFile, 'utf8')) as { token: string };
    // The token works against the server.
    expect((await server.call(token, 'GET', '/api/v1/drive/file-entries')).status).toBe(200);
    const config = readFileSync(join(home, 'config.json'), 'utf8');
    expect(JSON.parse(config)).toMatchObject({ server: server.url, email, roots: [] });
    expect(config).not.toContain(token);
    expect(config).not.toContain('a-long-password');

    const status = await statusJson(home);
    expect(status).toMatchObject({ account: email, server: server.url, signedIn: true, tokenSource: 'file' });

    // The same e-mail cannot be registered twice.
    const again = await cli(['register', '--server', server.url, '--email', email, '--password', 'a-long-password'], { home: tempDir() });
    expect(again.code).toBe(1);
    expectOneLineError(again, /register failed: .*email/i);
  });

  it('login with --password-stdin, then logout removes the token file', async () => {
    const account = await newAccount(server, 'login');
    const home = await signedInHome(server, account);
    expect(existsSync(join(home, 'token.json'))).toBe(true);
    expect(await statusJson(home)).toMatchObject({ account: account.email, signedIn: true, tokenSource: 'file' });

    const human = await cli(['status'], { home });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`account:   ${account.email}`);
    expect(human.stdout).toMatch(/signed in: yes/);

    const out = await cli(['logout'], { home });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('signed out of');
    expect(existsSync(join(home, 'token.json'))).toBe(false);
    expect(await statusJson(home)).toMatchObject({ signedIn: false, tokenSource: null });

    const again = await cli(['logout'], { home });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('not signed in');

    const after = await cli(['trash', 'ls'], { home });
    expect(after.code).toBe(1);
    expectOneLineError(after, /not signed in: run drivesync login/);
  });

  it('a wrong password fails with one line and stores nothing', async () => {
    const account = await newAccount(server, 'wrong');
    const home = tempDir();
    const result = await cli(['login', '--server', server.url, '--email', account.email, '--password', 'not-the-password'], { home });
    expect(result.code).toBe(1);
    expectOneLineError(result, /^drivesync: login failed: /);
    expect(existsSync(join(home, 'token.json'))).toBe(false);
    expect(existsSync(join(home, 'config.json'))).toBe(false);
  });

  it('an unreachable server fails with one line', async () => {
    const result = await cli(['login', '--server', 'http://127.0.0.1:9', '--email', 'a@example.com', '--password', 'whatever'], { home: tempDir() });
    expect(result.code).toBe(1);
    expectOneLineError(result, /cannot reach http:\/\/127\.0\.0\.1:9/);
  });

  it('usage errors exit 2 with one line', async () => {
    const home = tempDir();
    const cases: string[][] = [
      ['login', '--email', 'a@example.com', '--password', 'x'],
      ['login', '--server', server.url, '--password', 'x'],
      ['login', '--server', 'ftp://example.com', '--email', 'a@example.com', '--password', 'x'],
      ['login', '--server', 'not a url', '--email', 'a@example.com', '--password', 'x'],
      ['login', '--server', server.url, '--email', 'a@example.com'],
      ['login', '--server', server.url, '--email', 'a@example.com', '--password', 'x', '--password-stdin'],
      ['login', '--server', server.url, '--email', 'not-an-address', '--password', 'x'],
      ['register', '--server', server.url, '--email', 'a@example.com', '--password', ''],
      ['logout', 'extra'],
      ['login', '--bogus'],
      ['nosuchcommand'],
      [],
    ];
    const results = await Promise.all(cases.map((args) => cli(args, { home })));
    for (const [i, result] of results.entries()) {
      expect(result.code, `${cases[i]!.join(' ')}: ${result.stderr}`).toBe(2);
      expectOneLineError(result);
    }
    expect(existsSync(join(home, 'config.json'))).toBe(false);
  });

  it('a damaged config file is a one-line failure naming it', async () => {
    const home = tempDir();
    writeFileSync(join(home, 'config.json'), '{ not json');
    const results = await Promise.all([cli(['status'], { home }), cli(['logout'], { home }), cli(['trash', 'ls'], { home })]);
    for (const result of results) {
      expect(result.code).toBe(1);
      expectOneLineError(result, /config\.json is not valid JSON; fix it or remove it/);
    }
  });

  it('an empty --password-stdin is a usage error', async () => {
    const result = await cli(['login', '--server', server.url, '--email', 'a@example.com', '--password-stdin'], { home: tempDir(), input: '' });
    expect(result.code).toBe(2);
    expectOneLineError(result, /password is empty/);
  });
});

describe.concurrent('register and login against a deployed server', () => {
  // Deployed versions require password_confirmation and answer the registered user under bootstrapData.
  const deployed = useTestServer({ profile: 'deployed' });

  it('register signs in with a working token; login signs in a second state dir; failures are one line each', async () => {
    const home = tempDir();
    const email = `cli-deployed-${process.pid}@example.com`;
    const result = await cli(['register', '--server', deployed.url, '--email', email, '--password', 'a-long-password'], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`registered and signed in as ${email} on ${deployed.url}`);
    const { token } = JSON.parse(readFileSync(join(home, 'token.json'), 'utf8')) as { token: string };
    expect((await deployed.call(token, 'GET', '/api/v1/drive/file-entries')).status).toBe(200);
    expect(await statusJson(home)).toMatchObject({ account: email, server: deployed.url, signedIn: true });

    const second = tempDir();
    const login = await cli(['login', '--server', deployed.url, '--email', email, '--password-stdin'], { home: second, input: 'a-long-password\n' });
    expect(login.code, login.stderr).toBe(0);
    expect(await statusJson(second)).toMatchObject({ account: email, signedIn: true });

    const taken = await cli(['register', '--server', deployed.url, '--email', email, '--password', 'a-long-password'], { home: tempDir() });
    expect(taken.code).toBe(1);
    expectOneLineError(taken, /register failed: .*email/i);
    const wrong = await cli(['login', '--server', deployed.url, '--email', email, '--password', 'not-the-password'], { home: tempDir() });
    expect(wrong.code).toBe(1);
    expectOneLineError(wrong, /login failed: /);
  });
});

describe.concurrent('DRIVESYNC_TOKEN', () => {
  it('overrides the stored token, and works without any sign-in given DRIVESYNC_SERVER', async () => {
    const me = await newAccount(server, 'override-me');
    const other = await newAccount(server, 'override-other');
    // The other account has one entry in its trash; mine has none.
    const folder = await server.call(other.token, 'POST', '/api/v1/folders', { name: 'Only theirs', parentId: null });
    await server.call(other.token, 'DELETE', '/api/v1/file-entries', { entryIds: [String(folder.body.folder.id)], deleteForever: 'false' });

    const home = await signedInHome(server, me);
    const mine = await cli(['trash', 'ls', '--json'], { home });
    expect(mine.code, mine.stderr).toBe(0);
    expect(JSON.parse(mine.stdout)).toEqual([]);

    const overridden = await cli(['trash', 'ls', '--json'], { home, env: { DRIVESYNC_TOKEN: other.token } });
    expect(overridden.code, overridden.stderr).toBe(0);
    expect(JSON.parse(overridden.stdout).map((e: { name: string }) => e.name)).toEqual(['Only theirs']);
    expect(await statusJson(home, { DRIVESYNC_TOKEN: other.token })).toMatchObject({ signedIn: true, tokenSource: 'env' });

    // A fresh state dir: nothing signed in, the environment says everything.
    const fresh = tempDir();
    const env = { DRIVESYNC_TOKEN: other.token, DRIVESYNC_SERVER: server.url };
    const listed = await cli(['trash'], { home: fresh, env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+DELETED\s+SIZE\s+PATH$/m);
    expect(listed.stdout).toContain('Only theirs');
    expect(await statusJson(fresh, env)).toMatchObject({ server: server.url, signedIn: true, tokenSource: 'env' });
    expect(existsSync(join(fresh, 'token.json'))).toBe(false);
  });

  it('a token the server does not know is a one-line failure saying to sign in', async () => {
    const result = await cli(['trash', 'ls'], { home: tempDir(), env: { DRIVESYNC_TOKEN: 'not-a-real-token', DRIVESYNC_SERVER: server.url } });
    expect(result.code).toBe(1);
    expectOneLineError(result, /not signed in, or the session has expired: run drivesync login/);
  });
});

describe('the OS keychain (keytar on gnome-keyring in a private D-Bus session)', () => {
  it('login stores the token in the keychain (no file), later commands read it, logout removes it', async () => {
    const account = await newAccount(server, 'keychain');
    const home = tempDir();
    const keytarProbe = `const k = (await import(${JSON.stringify(join(ROOT, 'node_modules', 'keytar', 'lib', 'keytar.js'))})).default; const t = await k.getPassword('drivesync', process.argv[1]); console.log(t ? 'KEYCHAIN:' + t : 'KEYCHAIN:none');`;
    const script = [
      `ds login --server '${server.url}' --email '${account.email}' --password-stdin; echo "@login=$?"`,
      `if [ -e "$DRIVESYNC_HOME/token.json" ]; then echo "@file=yes"; else echo "@file=no"; fi`,
      `node --input-type=module -e "${keytarProbe.replace(/"/g, '\\"')}" '${server.url} ${account.email}'`,
      `ds status --json; echo "@status=$?"`,
      `ds trash ls --json; echo "@trash=$?"`,
      `ds logout; echo "@logout=$?"`,
      `node --input-type=module -e "${keytarProbe.replace(/"/g, '\\"')}" '${server.url} ${account.email}'`,
      `ds status --json; echo "@status2=$?"`,
    ].join('\n');
    const result = await inKeyring(script, { home, input: `${account.password}\n` });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const out = result.stdout;
    expect(out, result.stderr).toContain('@login=0');
    expect(out).toContain('the token is in the OS keychain');
    // No fallback notice, no file: the keychain answered.
    expect(result.stderr).not.toContain('no OS keychain answered');
    expect(out).toContain('@file=no');
    const stored = /KEYCHAIN:(\S+)/.exec(out)![1]!;
    expect(stored).not.toBe('none');
    expect((await server.call(stored, 'GET', '/api/v1/drive/file-entries')).status).toBe(200);
    const statuses = [...out.matchAll(/^\{[\s\S]*?^\}$/gm)].map((m) => JSON.parse(m[0]) as { signedIn?: boolean; tokenSource?: string });
    expect(statuses[0]).toMatchObject({ signedIn: true, tokenSource: 'keychain' });
    expect(out).toContain('@trash=0');
    expect(out).toContain('@logout=0');
    expect(out).toMatch(/token removed from the OS keychain/);
    expect(out).toMatch(/KEYCHAIN:none/);
    expect(statuses[statuses.length - 1]).toMatchObject({ signedIn: false });
    expect(out).toContain('@status2=0');
    // Nothing under the state dir holds the token.
    expect(existsSync(join(home, 'token.json'))).toBe(false);
    for (const file of allFiles(home)) expect(file.content.toString('latin1').includes(stored), file.path).toBe(false);
  });
});

describe.concurrent('help', () => {
  it('every command has --help', async () => {
    const commands = [
      [],
      ['register'],
      ['login'],
      ['logout'],
      ['sync'],
      ['status'],
      ['share'],
      ['unshare'],
      ['link'],
      ['star'],
      ['unstar'],
      ['trash'],
      ['trash', 'ls'],
      ['trash', 'restore'],
      ['lists'],
      ['lists', 'subscribers'],
      ['lists', 'add'],
      ['lists', 'subscribe'],
      ['lists', 'unsubscribe'],
      ['lists', 'remove'],
      ['demo'],
      ['server'],
    ];
    const home = tempDir();
    const results = await Promise.all(commands.map((c) => cli([...c, '--help'], { home })));
    for (const [i, result] of results.entries()) {
      const name = ['drivesync', ...commands[i]!].join(' ');
      expect(result.code, `${name}: ${result.stderr}`).toBe(0);
      expect(result.stdout, name).toContain(`Usage: ${name}`);
      expect(result.stderr).toBe('');
    }
    expect(results[0]!.stdout).toMatch(/sync \[options\] <dir>/);
    expect(results[0]!.stdout).toContain('DRIVESYNC_HOME');
  });
});

describe.concurrent('signing in on a terminal', () => {
  /** Answers each prompt once, in order, as a person typing would, after the prompt is on the screen. */
  const typing = (answers: string[]) => {
    let asked = 0;
    return (all: string, child: import('node:child_process').ChildProcess) => {
      const prompts = all.match(/Password: /gi)?.length ?? 0;
      if (prompts > asked && asked < answers.length) child.stdin!.write(`${answers[asked++]}\r`);
    };
  };
  const port = () => new URL(server.url).port;

  it('login asks for the password without echo, and an address without a scheme is http:// on this computer', async () => {
    const account = await newAccount(server, 'tty-login');
    const home = tempDir();
    const result = await cliOnTty(['login', '--server', `127.0.0.1:${port()}`, '--email', account.email], {
      home,
      onOutput: typing([account.password]),
    });
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/Password: \S*\r?\n/);
    expect(result.stdout).not.toContain(account.password);
    expect(result.stdout).toContain(`assuming http://127.0.0.1:${port()} (http:// on this computer`);
    expect(result.stdout).toContain(`signed in as ${account.email} on http://127.0.0.1:${port()}`);
    expect(await statusJson(home)).toMatchObject({ account: account.email, signedIn: true, server: `http://127.0.0.1:${port()}` });
  });

  it('register asks twice; two different answers create nothing', async () => {
    const email = `cli-tty-register-${process.pid}@example.com`;
    const differ = await cliOnTty(['register', '--server', server.url, '--email', email], { home: tempDir(), onOutput: typing(['first-password', 'second-password']) });
    expect(differ.code).toBe(1);
    expect(differ.stdout).toContain('Repeat password: ');
    expect(differ.stdout).toMatch(/drivesync: register failed: the two passwords differ; nothing was created/);
    const login = await cli(['login', '--server', server.url, '--email', email, '--password', 'first-password'], { home: tempDir() });
    expect(login.code).toBe(1);

    const home = tempDir();
    const same = await cliOnTty(['register', '--server', server.url, '--email', email], { home, onOutput: typing(['a-long-password', 'a-long-password']) });
    expect(same.code, same.stdout).toBe(0);
    expect(same.stdout).not.toContain('a-long-password');
    expect(same.stdout).toContain(`registered and signed in as ${email}`);
  });

  it('Ctrl-C at the prompt cancels in one line', async () => {
    let typed = false;
    const result = await cliOnTty(['login', '--server', server.url, '--email', 'nobody@example.com'], {
      home: tempDir(),
      onOutput: (all, child) => {
        if (all.includes('Password: ') && !typed) {
          typed = true;
          child.stdin!.write('\x03');
        }
      },
    });
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(/drivesync: login cancelled/);
    expect(result.stdout).not.toMatch(/\n\s+at /);
  });
});

