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
import { statePaths, type StatePaths } from '../../state/paths.js';
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

/** Where a demo keeps its things: all under the state dir's demo folder, with a state dir of its own. */
interface DemoPlace {
  dir: string;
  pidFile: string;
  homeDir: string;
  demoPaths: StatePaths;
  folder: string;
}

/** The demo's folder, emptied of the previous demo's and marked as this process's; refused while a demo runs. */
async function claimDemoPlace(): Promise<DemoPlace> {
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
  await removeDemoToken(demoPaths);
  rmSync(dir, { recursive: true, force: true });
  const folder = join(dir, 'Drive');
  for (const sub of ['server', 'home', 'Drive']) mkdirSync(join(dir, sub), { recursive: true, mode: 0o700 });
  writeFileSync(pidFile, String(process.pid));
  return { dir, pidFile, homeDir, demoPaths, folder };
}

async function removeDemoToken(demoPaths: StatePaths): Promise<void> {
  const config = loadConfig(demoPaths);
  if (config.server && config.email) await removeToken(demoPaths, config.server, config.email).catch(() => undefined);
}

/** SIGINT and SIGTERM stop the demo: `stopped` settles and `requested()` says so from then on. */
function stopOnSignal() {
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
  return {
    stopped,
    requested: () => stopRequested,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** A new account with a random password on the demo's server, signed in to in the demo's state dir. */
async function demoAccount(serverUrl: string, place: DemoPlace): Promise<{ session: Session; password: string }> {
  const email = `demo-${randomBytes(4).toString('hex')}@example.com`;
  const password = randomBytes(12).toString('base64url');
  const anonymous = await newClient(serverUrl, undefined);
  let token: string;
  try {
    ({ token } = await anonymous.auth.register({ email, password, tokenName: `drivesync demo on ${hostname()}` }));
  } catch (error) {
    throw failure(error, serverUrl, 'registering the demo account failed');
  }
  await storeToken(place.demoPaths, serverUrl, email, token, note);
  const config: Config = { server: serverUrl, email, roots: [place.folder], pollIntervalSeconds: 3 };
  saveConfig(place.demoPaths, config);
  log().info({ command: 'demo', server: serverUrl, email, folder: place.folder }, 'demo account ready');
  const client = await newClient(serverUrl, token);
  return { session: { paths: place.demoPaths, config, server: serverUrl, email, client, tokenSource: 'file' }, password };
}

function writeSamples(folder: string): void {
  for (const [path, content] of SAMPLES) {
    const file = join(folder, ...path.split('/'));
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, content);
  }
}

/** The public URL of a new shareable link to the synced hello.txt. */
async function sampleLink(session: Session, folder: string): Promise<string> {
  const { mirror } = rootOfAccount(session.paths, folder, session.server, session.email);
  const hello = await withMirror(mirror, (reader) => reader.itemAt('hello.txt'));
  if (!hello) throw new CliError('the sample file was not synced');
  try {
    return session.client.links.publicUrl(await session.client.links.create(hello.remoteId, {}));
  } catch (error) {
    throw failure(error, session.server, 'creating the demo link failed');
  }
}

function printWelcome(session: Session, password: string, place: DemoPlace, linkUrl: string): void {
  const { folder } = place;
  // Pasted into a new terminal, anywhere: the state dir and the program by absolute path.
  const cli = `DRIVESYNC_HOME=${shellWord(place.homeDir)} ${drivesyncCommand()}`;
  print('');
  print('drivesync demo: a reference server, a demo account and a synced folder, all on this machine');
  print(`server:   ${session.server}`);
  print(`e-mail:   ${session.email}`);
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
}

async function runDemo(): Promise<void> {
  const place = await claimDemoPlace();
  const stop = stopOnSignal();

  const { startServer } = await import('../../../server/app.js');
  const server = await startServer({ dataDir: join(place.dir, 'server'), host: '127.0.0.1', port: 0 });
  let run: SyncedFolder | null = null;
  try {
    const { session, password } = await demoAccount(server.url, place);
    writeSamples(place.folder);
    const reporter = new PlainReporter();
    run = await openSyncRun(session, place.folder, reporter);
    const first = await run.syncOnce({ fullScan: true });
    if (stop.requested()) return;
    if (!first.inSync) throw new CliError(`the demo folder did not get in sync: ${summaryLine(first)}`);

    printWelcome(session, password, place, await sampleLink(session, place.folder));

    run.on('pass', (summary) => {
      if (summary.done > 0 || summary.failed.length > 0) reporter.info(summaryLine(summary));
    });
    if (!stop.requested()) await run.start();
    await stop.stopped;
    print('demo stopped');
  } finally {
    await run?.close().catch(() => undefined);
    await server.close().catch(() => undefined);
    // The demo account dies with its server: its token leaves the keychain (or the file) now.
    await removeDemoToken(place.demoPaths);
    rmSync(place.pidFile, { force: true });
    stop.dispose();
  }
}

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('start a local reference server, a demo account and a synced sample folder, in one command')
    .action(runDemo);
}
