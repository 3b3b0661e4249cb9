/**
 * `drivesync service install|remove|status|logs`: the background service. With a systemd user manager, a user unit
 * runs `drivesync run` at login, restarts it on failure and sends its output to the journal; without one, an XDG
 * autostart entry starts it at login (said so), its output in the state folder's `logs/service.log`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../../state/config.js';
import { statePaths, type StatePaths } from '../../state/paths.js';
import { runningService, serviceAutostartFile, serviceAutostartText, serviceCommand, UNIT_NAME, unitFile, unitText } from '../../state/service.js';
import { CliError, usageError } from '../errors.js';
import { note, print, printJson, safe } from '../output.js';
import { followFiles } from '../follow-files.js';

const serviceLog = (paths: StatePaths) => join(dirname(paths.logFile), 'service.log');

/** Whether a systemd user manager answers here. */
function systemdUser(): boolean {
  if (process.env.DRIVESYNC_NO_SYSTEMD === '1') return false;
  const probe = spawnSync('systemctl', ['--user', 'show-environment'], { stdio: 'ignore', timeout: 10_000 });
  return probe.status === 0;
}

function systemctl(...args: string[]): { ok: boolean; said: string } {
  const result = spawnSync('systemctl', ['--user', ...args], { encoding: 'utf8', timeout: 30_000 });
  return { ok: result.status === 0, said: `${result.stderr ?? ''}`.trim().split('\n')[0] ?? '' };
}

/** Starts `drivesync run` on its own, its output appended to the service log. */
function startDetached(paths: StatePaths): number | undefined {
  const log = serviceLog(paths);
  mkdirSync(dirname(log), { recursive: true });
  const out = openSync(log, 'a');
  try {
    const [node, ...args] = serviceCommand();
    const child = spawn(node!, args, { detached: true, stdio: ['ignore', out, out], env: process.env });
    child.unref();
    return child.pid;
  } finally {
    closeSync(out);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function install(): Promise<void> {
  const paths = statePaths();
  const command = serviceCommand();
  if (systemdUser()) {
    const file = unitFile();
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, unitText(command));
    rmSync(serviceAutostartFile(), { force: true });
    for (const args of [['daemon-reload'], ['enable', '--now', UNIT_NAME]]) {
      const done = systemctl(...args);
      if (!done.ok) throw new CliError(`systemctl --user ${args.join(' ')} failed: ${done.said}`);
    }
    print(`installed: drivesync run starts at login and runs now, restarted if it fails (systemd user unit ${safe(file)}); drivesync service logs shows its output`);
    return;
  }
  const file = serviceAutostartFile();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, serviceAutostartText(command));
  note('there is no systemd user manager here: the service starts at login from an XDG autostart entry instead, and is not restarted if it fails');
  const running = runningService(paths);
  const pid = running ?? startDetached(paths);
  if (running === null) {
    // It says so in its log once it runs; a start that fails at once is said here.
    for (let waited = 0; waited < 10_000 && runningService(paths) === null; waited += 200) await sleep(200);
    if (runningService(paths) === null) throw new CliError(`drivesync run did not start; its log: ${serviceLog(paths)}`);
  }
  print(`installed: drivesync run starts at login (${safe(file)}) and runs now in process ${pid}; drivesync service logs shows its output`);
}

async function remove(): Promise<void> {
  const paths = statePaths();
  let removed = false;
  if (existsSync(unitFile())) {
    if (systemdUser()) systemctl('disable', '--now', UNIT_NAME);
    rmSync(unitFile(), { force: true });
    if (systemdUser()) systemctl('daemon-reload');
    removed = true;
  }
  if (existsSync(serviceAutostartFile())) {
    rmSync(serviceAutostartFile(), { force: true });
    removed = true;
  }
  const pid = runningService(paths);
  if (pid !== null) {
    process.kill(pid, 'SIGTERM');
    for (let waited = 0; waited < 20_000 && runningService(paths) !== null; waited += 200) await sleep(200);
  }
  if (!removed && pid === null) {
    print('the service is not installed');
    return;
  }
  print(`removed: drivesync run no longer starts at login${pid !== null ? `, and process ${pid} stopped` : ''}; your folders stay as they are (drivesync sync DIR syncs one in a terminal)`);
}

function status(options: { json?: boolean }): void {
  const paths = statePaths();
  const how = existsSync(unitFile()) ? 'systemd' : existsSync(serviceAutostartFile()) ? 'autostart' : null;
  const pid = runningService(paths);
  const folders = loadConfig(paths).roots;
  if (options.json) {
    printJson({ installed: how, file: how === 'systemd' ? unitFile() : how === 'autostart' ? serviceAutostartFile() : null, running: pid !== null, pid, folders });
    return;
  }
  print(`installed: ${how === 'systemd' ? `yes, a systemd user unit (${safe(unitFile())})` : how === 'autostart' ? `yes, an XDG autostart entry (${safe(serviceAutostartFile())})` : 'no (drivesync service install)'}`);
  print(`running:   ${pid !== null ? `yes, process ${pid}` : 'no'}`);
  print(`folders:   ${folders.length === 0 ? 'none synced yet' : folders.map(safe).join(', ')} (drivesync status says how each is doing)`);
}

async function logs(options: { follow?: boolean; lines?: string }): Promise<void> {
  const lines = options.lines === undefined ? 50 : Number(options.lines);
  if (!Number.isSafeInteger(lines) || lines < 0) throw usageError(`--lines takes a whole number (got ${options.lines})`);
  if (existsSync(unitFile()) && systemdUser()) {
    const journal = spawn('journalctl', ['--user', '-u', UNIT_NAME, '-n', String(lines), ...(options.follow ? ['-f'] : []), '--no-pager'], { stdio: 'inherit' });
    await new Promise((resolve) => journal.on('close', resolve));
    return;
  }
  const file = serviceLog(statePaths());
  if (!existsSync(file)) throw new CliError(`no log yet: the service has not run here (${file})`);
  const text = readFileSync(file, 'utf8');
  const shown = text.split('\n').filter((l) => l !== '').slice(-lines || Infinity);
  if (lines > 0) for (const line of shown) print(line);
  if (options.follow) await followFiles([file], print);
}

export function registerServiceCommands(program: Command): void {
  const service = program.command('service').description('the background service: drivesync run at login (install, remove, status, logs)');
  service.command('install').description('run drivesync run at login and now (a systemd user unit, or an XDG autostart entry)').action(() => install());
  service.command('remove').description('stop the service and no longer start it at login').action(() => remove());
  service.command('status').description('whether the service is installed and running, and its folders').option('--json', 'print JSON').action((options: { json?: boolean }) => status(options));
  service
    .command('logs')
    .description("the service's output (the journal's, under systemd)")
    .option('-f, --follow', 'go on printing as it writes, until Ctrl-C')
    .option('-n, --lines <n>', 'how many of the last lines (default 50)')
    .action((options: { follow?: boolean; lines?: string }) => logs(options));
}
