/** `drivesync status [--json]`: the account, the server, whether signed in, and each root's last known state. */
import type { Command } from 'commander';
import { loadConfig, type Config } from '../../state/config.js';
import { findToken, type FoundToken } from '../../state/credentials.js';
import { describeDeletions } from '../deletions.js';
import { localTime, offlineReason, print, printJson, safe } from '../output.js';
import { changesWaiting, limitsLine } from './sync.js';
import { statePaths, type StatePaths } from '../../state/paths.js';
import { isAlive } from '../../state/lock.js';
import { controlOf } from '../../state/control.js';
import { selectionOf } from '../../state/selection.js';
import { rootOfAccount } from '../../state/roots.js';
import { emailFor, serverOf } from '../../state/server.js';
import { sharedFolderOf } from '../../state/shared-folder.js';
import { readStatus } from '../../state/status-file.js';
import { runningService } from '../../state/service.js';

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('show the account, the server, whether signed in, and the state of each synced folder')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const paths = statePaths();
      const { report, token } = await statusReport(paths);
      if (options.json) return printJson(report);
      printStatus(report, token, paths);
    });
}

type StatusReport = Awaited<ReturnType<typeof statusReport>>['report'];
type RootReport = ReturnType<typeof rootReport>;

/** What `status` tells, as `--json` prints it, and the token it found. */
async function statusReport(paths: StatePaths) {
  const config = loadConfig(paths);
  const server = serverOf(config);
  const email = emailFor(config, server);
  const token = await findToken(paths, server, email);
  const roots = config.roots.map((root) => rootReport(paths, config, root, server, email));
  const report = {
    account: email ?? null,
    server: server ?? null,
    signedIn: token !== null,
    tokenSource: token?.source ?? null,
    stateDir: paths.home ?? paths.dataDir,
    // Transfer limits in bytes per second (sync --limit-up/--limit-down, the window's Settings); {} for none.
    bandwidth: config.bandwidth ?? {},
    // The background service (drivesync run) of this state folder, when it runs: its process.
    service: runningService(paths),
    roots,
  };
  return { report, token };
}

/** One synced folder's last known state, from its status file and the config. */
function rootReport(paths: StatePaths, config: Config, root: string, server: string | undefined, email: string | undefined) {
  const status = server ? readStatus(paths, rootOfAccount(paths, root, server, email).key) : null;
  const running = status !== null && status.state !== 'stopped' && isAlive(status.pid);
  return {
    path: root,
    state: !status ? 'never synced' : running ? status.state : status.state === 'stopped' ? 'stopped' : 'not running (the sync ended without stopping cleanly)',
    running,
    detail: status?.detail ?? null,
    lastSync: status?.lastSync ?? null,
    inSync: status?.inSync ?? null,
    offline: status?.offline ?? null,
    counts: status?.counts ?? null,
    // The last result the sync told, in its words (`in sync (3 changes)`).
    result: status?.result ?? null,
    // The folder at the path is not the synced one (gone, or another there): what happened and what to do.
    folderProblem: status?.folderProblem ?? null,
    // What was left out by design is not among the errors (the engine marks it so): it is listed as skipped.
    errors: status?.errors ?? [],
    skipped: status?.skipped ?? { items: [], ignored: 0 },
    // Deletions waiting for an answer, with every item (the question on the terminal shows the first few).
    deletions: running ? (status?.deletions ?? null) : null,
    // Paused by drivesync pause or the window: until when (null: until resumed).
    paused: controlOf(config, root).paused,
    // Folders of the drive left out here (drivesync excluded names them, with their sizes).
    excluded: selectionOf(config, root).excluded.size,
    // What others share with the account, where it arrives here (null: turned off, or not looked at yet).
    shared: status?.shared ?? null,
    sharedFolder: sharedFolderOf(config, root),
  };
}

function printStatus(report: StatusReport, token: FoundToken | null, paths: StatePaths): void {
  const source = { env: 'DRIVESYNC_TOKEN', keychain: 'OS keychain', file: paths.tokenFile };
  print(`account:   ${report.account ?? '-'}`);
  print(`server:    ${report.server ?? '-'}`);
  print(`signed in: ${token ? `yes (token from ${source[token.source]})` : 'no (run drivesync login)'}`);
  if (report.bandwidth.upBytesPerSecond || report.bandwidth.downBytesPerSecond) print(`limits:    ${limitsLine(report.bandwidth)}`);
  if (report.service !== null) print(`service:   drivesync run syncs the folders, in process ${report.service} (drivesync service status)`);
  if (report.roots.length === 0) {
    print('folders:   none synced yet (run drivesync sync DIR)');
    return;
  }
  print('folders:');
  for (const root of report.roots) printRoot(root);
}

function printRoot(root: RootReport): void {
  print(`  ${safe(root.path)}`);
  printRootState(root);
  if (root.excluded > 0) print(`    excluded:  ${counted(root.excluded, 'folder of the drive', 'folders of the drive')} not synced here (drivesync excluded lists them)`);
  print(`    shared:    ${sharedLine(root.shared, root.sharedFolder)}`);
  if (root.paused) print(`    paused:    ${root.paused.until ? `until ${localTime(root.paused.until)}` : 'until resumed'} (drivesync resume ${safe(root.path)} goes on)`);
  if (root.counts) print(`    items:     ${root.counts.synced} synced, ${root.counts.failed} failed`);
  if (root.deletions) {
    for (const line of describeDeletions(root.deletions, 5)) print(`    ${line}`);
    print(`    answer:    drivesync deletions --delete ${safe(root.path)} (delete them) or --keep (keep them); everything else goes on syncing`);
  }
  for (const error of root.errors.slice(0, 5)) print(`    error:     ${safe(error.path ? `${error.path}: ${error.message}` : error.message)}`);
  if (root.errors.length > 5) print(`    … and ${root.errors.length - 5} more errors (status --json lists them)`);
  const others = root.skipped.items.filter((s) => !s.message.startsWith('left out by the ignore rules'));
  const kinds = leftOutKinds(root.skipped.ignored, others);
  if (kinds.length > 0) {
    print(`    left out:  ${kinds.join(', ')} (on purpose, not failures)`);
    for (const item of others.slice(0, 5)) print(`      ${safe(`${item.path}: ${item.message}`)}`);
  }
}

/** The state line of a folder, and its last sync. */
function printRootState(root: RootReport): void {
  if (root.folderProblem) {
    // The engine's words say what happened and what to do; the state says whether a sync still waits on it.
    print(`    state:     ${root.state}: ${safe(root.folderProblem.message)}`);
    if (root.lastSync) print(`    last sync: ${localTime(root.lastSync)} (nothing was synced since)`);
  } else if (root.offline) {
    // The engine's detail names the endpoint; the reason is what a person needs.
    const why = safe(offlineReason(root.offline.reason));
    const since = localTime(root.offline.since);
    const state = root.running ? `offline: cannot reach the server (${why}) since ${since}` : `${root.state}; the last run could not reach the server (${why}) at ${since}`;
    print(`    state:     ${state}`);
    if (root.offline.waitingUp !== undefined) print(`    waiting:   ${changesWaiting(root.offline.waitingUp)}`);
    if (root.lastSync) print(`    last sync: ${localTime(root.lastSync)} (the server has not been reached since)`);
  } else {
    const state = root.running ? `${root.state}${root.inSync ? ', in sync' : ''}` : root.state;
    print(`    state:     ${state}${root.detail ? ` (${safe(root.detail)})` : ''}`);
    if (root.lastSync) {
      const result = root.inSync ? 'in sync' : root.inSync === false ? 'not in sync' : 'unknown';
      print(`    last sync: ${localTime(root.lastSync)}${root.result ? `, ${root.result}` : ` (${result})`}`);
    }
  }
}

const counted = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What a pass left out on purpose, counted by kind in words: "2 ignored names, 1 symbolic link". */
function leftOutKinds(ignored: number, items: ReadonlyArray<{ message: string }>): string[] {
  const links = items.filter((i) => i.message === 'symbolic links are not synced').length;
  const empty = items.filter((i) => i.message.startsWith('an empty folder named')).length;
  const places = items.filter((i) => i.message.includes('a folder of the drive this computer leaves out')).length;
  const rest = items.length - links - empty - places;
  return [
    ...(ignored > 0 ? [`${counted(ignored, 'ignored name', 'ignored names')} (temporary files and .syncignore)`] : []),
    ...(links > 0 ? [counted(links, 'symbolic link', 'symbolic links')] : []),
    ...(empty > 0 ? [counted(empty, 'empty folder the drive cannot hold', 'empty folders the drive cannot hold')] : []),
    ...(places > 0 ? [counted(places, 'local folder at an excluded folder\'s place', 'local folders at excluded folders\' places')] : []),
    ...(rest > 0 ? [counted(rest, 'other item', 'other items')] : []),
  ];
}

/** What others share with the account, in one line of status. */
function sharedLine(shared: { folder: string; entries: number; viewOnly: number } | null, folder: string | null): string {
  if (folder === null) return 'what others share with you is not synced here (sharedWithMe in config.json, or the window\'s Settings)';
  if (!shared) return `what others share with you arrives in ${safe(folder)}/`;
  if (shared.entries === 0) return `nothing is shared with you (it would arrive in ${safe(shared.folder)}/)`;
  const viewOnly = shared.viewOnly > 0 ? `, ${shared.viewOnly} of them to view only` : '';
  return `${counted(shared.entries, 'item', 'items')} shared with you, in ${safe(shared.folder)}/${viewOnly} (drivesync shared lists them)`;
}
