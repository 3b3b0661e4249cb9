/**
 * `drivesync demo`: the reference server in-process on a free loopback port (data under the state dir), a demo
 * account with a random password, a folder with a few sample files synced to it, and a shareable link to one of
 * them; then it keeps syncing until Ctrl-C. The demo has a state dir of its own (`demo/home`), so it never replaces
 * the account the command line is signed in to.
 */
import type { Command } from 'commander';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { loadConfig, saveConfig, type Config } from '../../state/config.js';
import { removeToken, storeToken } from '../../state/credentials.js';
import { CliError, failure } from '../errors.js';
import { log } from '../log.js';
import { note, print } from '../output.js';
import { statePaths } from '../../state/paths.js';
import { PlainReporter } from '../progress.js';
import { isAlive } from '../../state/lock.js';
import type { SyncedFolder } from '../../state/folder.js';
import { rootOfAccount } from '../../state/roots.js';
import { drivesyncCommand, shellWord } from '../invocation.js';
import { withMirror } from '../locate.js';
import { newClient, type Session } from '../session.js';
import { openSyncRun, summaryLine } from './sync.js';

const SAMPLES: ReadonlyArray<readonly [string, string]> = [
  ['hello.txt', 'Hello from drivesync!\nEdit this file and watch the change reach the server.\n'],
  [
    'notes.md',
    '# Notes\n\n- This folder is kept in two-way sync with the demo server.\n- Try `drivesync link` on a file to share it.\n',
  ],
  ['Projects/plan.txt', 'Step 1: edit a file.\nStep 2: share it.\nStep 3: there is no step 3.\n'],
];

async function runDemo(): Promise<void> {
  const paths = statePaths();
  const dir = paths.demoDir;
  const pidFile = join(dir, 'demo.pid');
  const previousPid = Number((() => {
    try {
      return readFileSync(pidFile, 'utf8').trim();
    } catch {
      return '0';
    }
  })());
  if (previousPid !== process.pid && isAlive(previousPid)) throw new CliError(`a demo is already running (process ${previousPid})`);

  const homeDir = join(dir, 'home');
  const demoPaths = statePaths({ DRIVESYNC_HOME: homeDir });
  // Each demo starts afresh: the previous one's token leaves the keychain with its files.
  const old = loadConfig(demoPaths);
  if (old.server && old.email) await removeToken(demoPaths, old.server, old.email).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
  const folder = join(dir, 'Drive');
  for (const sub of ['server', 'home', 'Drive']) mkdirSync(join(dir, sub), { recursive: true, mode: 0o700 });
  writeFileSync(pidFile, String(process.pid));

  let stopRequested = false;
  let stop: (() => void) | undefined;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const onSignal = (signal: NodeJS.Signals) => {
    log().info({ signal }, 'demo stopping');
    stopRequested = true;
    stop?.();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const { startServer } = await import('../../../server/app.js');
  const server = await startServer({ dataDir: join(dir, 'server'), host: '127.0.0.1', port: 0 });
  let run: SyncedFolder | null = null;
  try {
    const email = `demo-${randomBytes(4).toString('hex')}@example.com`;
    const password = randomBytes(12).toString('base64url');
    const anonymous = await newClient(server.url, undefined);
    let token: string;
    try {
      ({ token } = await anonymous.auth.register({ email, password, tokenName: `drivesync demo on ${hostname()}` }));
    } catch (error) {
      throw failure(error, server.url, 'registering the demo account failed');
    }
    await storeToken(demoPaths, server.url, email, token, note);
    const config: Config = { server: server.url, email, roots: [folder], pollIntervalSeconds: 3 };
    saveConfig(demoPaths, config);
    log().info({ command: 'demo', server: server.url, email, folder }, 'demo account ready');

    for (const [path, content] of SAMPLES) {
      const file = join(folder, ...path.split('/'));
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, content);
    }

    const client = await newClient(server.url, token);
    const session: Session = { paths: demoPaths, config, server: server.url, email, client, tokenSource: 'file' };
    const reporter = new PlainReporter();
    run = await openSyncRun(session, folder, reporter);
    const first = await run.syncOnce({ fullScan: true });
    if (stopRequested) return;
    if (!first.inSync) throw new CliError(`the demo folder did not get in sync: ${summaryLine(first)}`);

    const { mirror } = rootOfAccount(demoPaths, folder, server.url, email);
    const hello = await withMirror(mirror, (reader) => reader.itemAt('hello.txt'));
    if (!hello) throw new CliError('the sample file was not synced');
    let linkUrl: string;
    try {
      linkUrl = client.links.publicUrl(await client.links.create(hello.remoteId, {}));
    } catch (error) {
      throw failure(error, server.url, 'creating the demo link failed');
    }

    // Pasted into a new terminal, anywhere: the state dir and the program by absolute path.
    const cli = `DRIVESYNC_HOME=${shellWord(homeDir)} ${drivesyncCommand()}`;
    print('');
    print('drivesync demo: a reference server, a demo account and a synced folder, all on this machine');
    print(`server:   ${server.url}`);
    print(`e-mail:   ${email}`);
    print(`password: ${password}`);
    print(`folder:   ${folder}`);
    print(`link:     ${linkUrl}  (hello.txt)`);
    print('in sync');
    print('');
    print('try next:');
    print(`  open the link in a browser:  ${linkUrl}`);
    print(`  edit a file or add one in ${folder}: the change reaches the server within a second or two`);
    print('    (editing hello.txt gives it a new link URL, printed here: the service cannot replace content in place)');
    print(`  share another file by link:  ${cli} link ${shellWord(join(folder, 'notes.md'))} --password SECRET`);
    print(`  see the state:               ${cli} status`);
    print('Ctrl-C stops the demo (and its server); its files stay in place until the next demo run.');
    print('');

    run.on('pass', (summary) => {
      if (summary.done > 0 || summary.failed.length > 0) reporter.info(summaryLine(summary));
    });
    if (!stopRequested) await run.start();
    await stopped;
    print('demo stopped');
  } finally {
    await run?.close().catch(() => undefined);
    await server.close().catch(() => undefined);
    // The demo account dies with its server: its token leaves the keychain (or the file) now.
    const config = loadConfig(demoPaths);
    if (config.server && config.email) await removeToken(demoPaths, config.server, config.email).catch(() => undefined);
    rmSync(pidFile, { force: true });
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('start a local reference server, a demo account and a synced sample folder, in one command')
    .action(runDemo);
}
