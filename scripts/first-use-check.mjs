// The README's first use, as a newcomer does it: the lines between `<!-- first-use:begin -->` and
// `<!-- first-use:end -->` typed one by one into bash on a terminal, in a fresh clone of this checkout.
//   node scripts/first-use-check.mjs [--keep]        (npm run first-use-check)
//
// - The clone is made with `git clone` of this checkout's HEAD, so what is checked is what is committed, as a
//   newcomer gets it (changes not committed are not in it). Every line runs literally, `npm ci` and `npm link`
//   included.
// - Nothing outside a temp folder is touched: HOME is a throwaway folder and npm's global prefix another one (so
//   `npm link` puts `drivesync` there, and that bin folder is first on PATH). npm's download cache and the user's
//   npm configuration (`npm config get cache`, `npm config get userconfig`) and node-gyp's Node headers are the
//   machine's, found before HOME changes, so nothing is downloaded that is already there and npm is set up as for
//   its user.
// - Where no D-Bus session runs and dbus-run-session and gnome-keyring-daemon are installed, it starts a private
//   session with an unlocked keyring (in the throwaway HOME), so signing in stores the token in a keychain as on a
//   desktop; without them, the command line stores it in its 0600 file after saying so, and the check says which.
// - The shell runs on a pseudo-terminal (util-linux `script`), as a terminal a person types into: the password is
//   typed when `Password: ` (and `Repeat password: `) is asked. The `sync` line is left running until it says it is
//   watching; then a file is put into the synced folder, the check waits until the server has it (signed in over
//   the service's own API) and `drivesync status` says the folder is in sync, then types Ctrl-C.
// - It is bounded: FIRST_USE_TIMEOUT_S (900) for the whole run. FIRST_USE_README=FILE takes the block from FILE
//   instead of the clone's README (to try a changed block before committing it). --keep leaves the temp folder.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SELF = fileURLToPath(import.meta.url);
const keep = process.argv.includes('--keep');
const started = Date.now();
const deadline = started + Number(process.env.FIRST_USE_TIMEOUT_S ?? 900) * 1000;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const say = (line) => process.stdout.write(`first-use: ${line}\n`);

class CheckFailed extends Error {}
const fail = (line) => {
  throw new CheckFailed(line);
};

/** The lines of the README's first-use block (the shell fence between the markers), as a person would paste them. */
function firstUseLines(readme) {
  const begin = readme.indexOf('<!-- first-use:begin -->');
  const end = readme.indexOf('<!-- first-use:end -->');
  if (begin < 0 || end < begin) fail('README.md has no <!-- first-use:begin --> … <!-- first-use:end --> block');
  const fence = /```(?:sh|bash|shell)?\n([\s\S]*?)```/.exec(readme.slice(begin, end));
  if (!fence) fail('the first-use block holds no ```sh fence');
  return fence[1].split('\n').filter((line) => line.trim() !== '');
}

function portFree(port) {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}

const have = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

// ---------------------------------------------------------------------------------------------------------------
// Outside: the temp folder, the D-Bus session, and cleaning up whatever happens inside.
function main() {
  if (process.env.FIRST_USE_WORK) {
    inside().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`first-use: FAILED: ${error instanceof CheckFailed ? error.message : error?.stack ?? error}\n`);
        process.exit(1);
      },
    );
    return;
  }
  for (const tool of ['git', 'script', 'bash']) {
    if (!have(tool)) {
      process.stderr.write(`first-use: FAILED: needs \`${tool}\` (script is in util-linux)\n`);
      process.exit(1);
    }
  }
  const work = mkdtempSync(join(tmpdir(), 'drivesync-first-use-'));
  const npmConfig = (key) => spawnSync('npm', ['config', 'get', key], { encoding: 'utf8' }).stdout.trim();
  const env = {
    ...process.env,
    FIRST_USE_WORK: work,
    FIRST_USE_NPM_CACHE: npmConfig('cache'),
    FIRST_USE_NPM_USERCONFIG: npmConfig('userconfig'),
    // node-gyp's Node headers, where a build of the native modules left them (else it downloads them again).
    FIRST_USE_NODE_GYP_DIR: join(process.env.XDG_CACHE_HOME || join(process.env.HOME ?? '', '.cache'), 'node-gyp'),
    HOME: join(work, 'home'),
  };
  mkdirSync(env.HOME);
  const keyring = !process.env.DBUS_SESSION_BUS_ADDRESS && have('dbus-run-session') && have('gnome-keyring-daemon');
  env.FIRST_USE_KEYRING = keyring ? '1' : '';
  say(keyring ? 'in a private D-Bus session with an unlocked gnome-keyring' : process.env.DBUS_SESSION_BUS_ADDRESS ? 'in the D-Bus session it was started in' : 'without a D-Bus session: the token goes to the fallback file');
  const [command, args] = keyring
    ? // `--unlock` makes the login keyring (in the throwaway HOME) and starts the Secret Service on it.
      ['dbus-run-session', ['--', 'sh', '-c', 'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec "$0" "$@"', process.execPath, SELF, ...process.argv.slice(2)]]
    : [process.execPath, [SELF, ...process.argv.slice(2)]];
  const child = spawn(command, args, { env, stdio: 'inherit' });
  const forward = (signal) => child.kill(signal);
  process.on('SIGINT', forward).on('SIGTERM', forward);
  child.on('close', (code, signal) => {
    if (keep) say(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
    process.exit(code ?? (signal ? 1 : 0));
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Inside: clone, then the lines on a terminal.
async function inside() {
  const work = process.env.FIRST_USE_WORK;
  const home = process.env.HOME;
  const clone = join(work, 'drivesync');
  const prefix = join(work, 'npm-global');
  mkdirSync(prefix);
  // The shell's own settings: only its prompt, which shows the exit code of each line.
  const rcfile = join(work, 'bashrc');
  writeFileSync(rcfile, "PS1='[$?] first-use$ '\n");

  const cloned = spawnSync('git', ['clone', '--quiet', REPO, clone], { encoding: 'utf8' });
  if (cloned.status !== 0) fail(`git clone failed: ${cloned.stderr.trim()}`);
  const commit = spawnSync('git', ['-C', clone, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' }).stdout.trim();
  say(`fresh clone of ${REPO} at ${commit.slice(0, 100)}`);
  const readmePath = process.env.FIRST_USE_README ? resolve(process.env.FIRST_USE_README) : join(clone, 'README.md');
  const lines = firstUseLines(readFileSync(readmePath, 'utf8'));
  if (lines.some((l) => /\bdrivesync server\b.*--port 8080\b/.test(l)) && !(await portFree(8080))) {
    fail('port 8080 is in use on this computer, and the first use starts its server there');
  }

  // The shell's environment: a person's, in the throwaway HOME. Nothing of drivesync's or of an npm run that started
  // this check is passed on (npm sets npm_config_* and npm_package_* for its scripts).
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|DRIVESYNC_|XDG_(CONFIG|DATA|STATE|CACHE)_HOME$|FIRST_USE_|INIT_CWD$|COLUMNS$|LINES$)/i.test(key)) continue;
    env[key] = value;
  }
  Object.assign(env, {
    HOME: home,
    PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
    npm_config_prefix: prefix,
    npm_config_cache: process.env.FIRST_USE_NPM_CACHE,
    TERM: 'xterm-256color',
    // Nothing may download a browser or the Electron binary.
    ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
    PUPPETEER_SKIP_DOWNLOAD: '1',
  });
  const userconfig = process.env.FIRST_USE_NPM_USERCONFIG;
  if (userconfig && existsSync(userconfig)) env.npm_config_userconfig = userconfig;
  if (existsSync(process.env.FIRST_USE_NODE_GYP_DIR)) env.npm_config_devdir = process.env.FIRST_USE_NODE_GYP_DIR;

  const terminal = new Terminal(spawn('script', ['-qefc', `bash --noprofile --rcfile ${rcfile} -i`, '/dev/null'], { cwd: clone, env, stdio: ['pipe', 'pipe', 'pipe'] }));
  const password = `pw-${randomBytes(6).toString('hex')}`;
  let serverUrl = null;
  let serverPid = null;
  let email = null;
  try {
    await terminal.prompt(30_000);
    // The size a terminal window has; a pseudo-terminal made by `script` from a pipe has none.
    await terminal.run('stty cols 120 rows 40', 10_000);

    for (const line of lines) {
      const t0 = Date.now();
      say(`$ ${line}`);
      if (/\bdrivesync\s+(register|login)\b/.test(line)) {
        email = /--email\s+(\S+)/.exec(line)?.[1] ?? null;
        const mark = terminal.type(line);
        if (/--password-stdin\b/.test(line)) {
          await sleep(1500);
          terminal.send(`${password}\r\x04`);
        }
        let from = mark;
        for (;;) {
          const seen = await terminal.waitFor(/(Repeat password: |Password: )|\[(\d+)\] first-use\$ /g, from, remaining(120_000), line);
          from = seen.end;
          if (seen.match[1]) {
            terminal.send(`${password}\r`);
            continue;
          }
          if (seen.match[2] !== '0') fail(`\`${line}\` exited with ${seen.match[2]}\n${terminal.tail()}`);
          break;
        }
      } else if (/&\s*(#.*)?$/.test(line)) {
        const mark = terminal.type(line);
        await terminal.finished(line, mark, 30_000);
        serverPid = Number(/\[\d+\] (\d+)/.exec(terminal.text(mark))?.[1]) || null;
        const listening = await terminal.waitFor(/listening on (http:\/\/\S+)/g, mark, remaining(60_000), line);
        serverUrl = listening.match[1];
      } else if (/\bdrivesync\s+sync\b/.test(line)) {
        const folder = realpathSync(/\bsync\s+(\S+)/.exec(line)[1].replace(/^~(?=\/|$)/, home));
        const mark = terminal.type(line);
        const ready = await terminal.waitFor(/watching .* for changes|\[(\d+)\] first-use\$ /g, mark, remaining(300_000), line);
        if (ready.match[1] !== undefined) fail(`\`${line}\` exited with ${ready.match[1]} instead of watching\n${terminal.tail()}`);
        say(`  watching after ${seconds(Date.now() - t0)}`);
        await checkSynced({ folder, env, serverUrl, email, password, terminal });
        const stop = terminal.send('\x03');
        const stopped = await terminal.waitFor(/\[(\d+)\] first-use\$ /g, stop, remaining(30_000), 'Ctrl-C');
        if (stopped.match[1] !== '0') fail(`\`${line}\` ended with ${stopped.match[1]} after Ctrl-C (0 expected)\n${terminal.tail()}`);
      } else {
        await terminal.run(line, remaining(Infinity));
      }
      say(`  done in ${seconds(Date.now() - t0)}`);
    }
    await terminal.run('kill %1 2>/dev/null; wait', 30_000).catch(() => {});
    terminal.type('exit');
    await terminal.exited(10_000);
  } catch (error) {
    if (error instanceof CheckFailed) throw error;
    throw new CheckFailed(`${error?.message ?? error}\n${terminal.tail()}`);
  } finally {
    // What the terminal showed, beside the clone, for --keep.
    writeFileSync(join(work, 'terminal.txt'), terminal.text());
    terminal.kill();
    if (serverPid) {
      try {
        process.kill(serverPid, 'SIGTERM');
      } catch {
        // It ended with the shell.
      }
    }
  }
  say(`passed in ${seconds(Date.now() - started)}`);
}

function remaining(ms) {
  const left = deadline - Date.now();
  if (left <= 0) fail(`the first use took longer than FIRST_USE_TIMEOUT_S (${seconds(Date.now() - started)})`);
  return Math.min(ms, left);
}

/** A wait of at most `ms` (and within the whole run's time): `check()` fails with `what` once it is over. */
function within(ms, what) {
  const end = Date.now() + remaining(ms);
  return () => {
    if (Date.now() > end) fail(`${what} within ${seconds(ms)}`);
    remaining(ms);
  };
}

/** A file put into the synced folder reaches the server, and `drivesync status` says the folder is in sync. */
async function checkSynced({ folder, env, serverUrl, email, password }) {
  if (!serverUrl || !email) fail('the block starts no server or signs in to none before `sync`');
  const name = 'hello-from-the-first-use.txt';
  const content = `put into ${folder} at ${new Date().toISOString()}\n`;
  const t0 = Date.now();
  writeFileSync(join(folder, name), content);

  const api = async (path, init = {}) => {
    const response = await fetch(`${serverUrl}/api/v1${path}`, init);
    if (!response.ok) fail(`${init.method ?? 'GET'} ${path} answered ${response.status}`);
    return response;
  };
  const login = await api('/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password, token_name: 'first-use check' }),
  });
  const token = (await login.json()).user.access_token;
  const auth = { authorization: `Bearer ${token}` };

  let onServer = null;
  const uploadTime = within(60_000, `the file put into ${folder} did not reach the server`);
  while (!onServer) {
    uploadTime();
    const listing = await (await api('/drive/file-entries?perPage=1000', { headers: auth })).json();
    const entries = Array.isArray(listing) ? listing : listing.data;
    const entry = entries.find((e) => e.name === name && e.type !== 'folder');
    if (entry && (await (await api(`/file-entries/${entry.id}`, { headers: auth })).text()) === content) onServer = entry;
    else await sleep(250);
  }
  say(`  the file put into ${folder.replace(env.HOME, '~')} is on the server after ${seconds(Date.now() - t0)}`);

  let status;
  const settleTime = within(60_000, '`drivesync status --json` did not say the folder is in sync');
  for (;;) {
    settleTime();
    const run = spawnSync('drivesync', ['status', '--json'], { env, encoding: 'utf8', timeout: 30_000 });
    if (run.status !== 0) fail(`drivesync status --json exited with ${run.status}: ${run.stderr.trim()}`);
    status = JSON.parse(run.stdout);
    const root = status.roots.find((r) => r.path === folder);
    if (root?.running && root.inSync && root.state === 'idle' && root.counts?.synced >= 1) break;
    await sleep(250);
  }
  if (!status.signedIn) fail('drivesync status says it is not signed in');
  if (process.env.FIRST_USE_KEYRING && status.tokenSource !== 'keychain') fail(`the token is in ${status.tokenSource}, not the keychain of the D-Bus session`);
  const plain = spawnSync('drivesync', ['status'], { env, encoding: 'utf8', timeout: 30_000 }).stdout;
  for (const line of plain.trimEnd().split('\n')) say(`  drivesync status | ${line}`);
}

function sleep(ms) {
  return new Promise((done) => setTimeout(done, ms));
}

/** Terminal output as text: colours, cursor moves, bracketed paste and titles removed; a carriage return ends a line. */
const ESCAPE = /\x1b(\][^\x07\x1b]*(\x07|\x1b\\)|\[[0-9;?]*[ -\/]*[@-~]|[()][A-Z0-9]|[=>])/g;
const plainText = (text) => text.replace(ESCAPE, '').replace(/\r\n/g, '\n').replace(/\r/g, '\n');

/** A shell on a pseudo-terminal: what it printed (escape sequences and carriage returns removed), and typing. */
class Terminal {
  constructor(child) {
    this.child = child;
    this.pending = '';
    this.clean = '';
    this.waiters = new Set();
    this.closed = null;
    const take = (chunk) => {
      let text = this.pending + chunk;
      this.pending = '';
      // An escape sequence cut by the end of the chunk waits for the rest.
      const escape = text.lastIndexOf('\x1b');
      if (escape >= 0 && text.length - escape < 64) {
        ESCAPE.lastIndex = escape;
        const whole = ESCAPE.exec(text);
        if (!whole || whole.index !== escape) {
          this.pending = text.slice(escape);
          text = text.slice(0, escape);
        }
      }
      this.clean += plainText(text);
      for (const wake of this.waiters) wake();
    };
    child.stdout.setEncoding('utf8').on('data', take);
    child.stderr.setEncoding('utf8').on('data', take);
    child.on('close', (code) => {
      this.closed = code;
      for (const wake of this.waiters) wake();
    });
  }

  /** Types a line and Enter; answers where in the output what follows it starts. */
  type(line) {
    const mark = this.clean.length;
    this.child.stdin.write(`${line}\r`);
    return mark;
  }

  send(keys) {
    const mark = this.clean.length;
    this.child.stdin.write(keys);
    return mark;
  }

  text(from = 0) {
    return this.clean.slice(from);
  }

  /** The first match of a global pattern at or after `from`, with where it ends. */
  waitFor(pattern, from, timeoutMs, what) {
    return new Promise((found, failed) => {
      const check = () => {
        pattern.lastIndex = from;
        const match = pattern.exec(this.clean);
        if (match) return finish(() => found({ match, end: match.index + match[0].length }));
        if (this.closed !== null) return finish(() => failed(new CheckFailed(`the terminal closed while waiting for ${pattern} (${what})\n${this.tail()}`)));
      };
      const timer = setTimeout(() => finish(() => failed(new CheckFailed(`\`${what}\`: no ${pattern} within ${seconds(timeoutMs)}\n${this.tail()}`))), timeoutMs);
      const finish = (then) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        then();
      };
      this.waiters.add(check);
      check();
    });
  }

  prompt(timeoutMs) {
    return this.waitFor(/\[(\d+)\] first-use\$ /g, 0, timeoutMs, 'the shell');
  }

  /** Waits for the prompt after a line typed at `mark`; fails unless the line's exit code is 0. */
  async finished(line, mark, timeoutMs) {
    const done = await this.waitFor(/\[(\d+)\] first-use\$ /g, mark, timeoutMs, line);
    if (done.match[1] !== '0') fail(`\`${line}\` exited with ${done.match[1]}\n${this.tail()}`);
    return done;
  }

  run(line, timeoutMs) {
    return this.finished(line, this.type(line), timeoutMs);
  }

  exited(timeoutMs) {
    if (this.closed !== null) return Promise.resolve(this.closed);
    return new Promise((done) => {
      const timer = setTimeout(() => done(null), timeoutMs);
      this.child.on('close', (code) => {
        clearTimeout(timer);
        done(code);
      });
    });
  }

  /** The last lines the terminal showed, for a failure's message. */
  tail(count = 40) {
    return this.clean
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(-count)
      .map((l) => `  | ${l}`)
      .join('\n');
  }

  kill() {
    if (this.closed === null) this.child.kill('SIGKILL');
  }
}

main();
