/**
 * `drivesync pause [DIR] [--for 30m]`, `resume [DIR]`, `remove DIR`: written to the config, followed by whoever syncs
 * the folder (a running `sync`, the window's engines); they work as well while nothing runs.
 */
import type { Command } from 'commander';
import { loadConfig } from '../../state/config.js';
import { forgetFolder, pauseFolders, resumeFolders, runningSync, unlistFolder } from '../../state/control.js';
import { statePaths, type StatePaths } from '../../state/paths.js';
import { canonicalPath, findRoot } from '../../state/roots.js';
import { emailFor, serverOf } from '../../state/server.js';
import { CliError, usageError } from '../errors.js';
import { localTime, note, print, safe } from '../output.js';

/** `30m`, `2h`, `1h30m`, `45s`, `1d` as milliseconds. */
export function parseDuration(text: string): number | null {
  const match = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text.trim().toLowerCase());
  if (!match || text.trim() === '') return null;
  const [d, h, m, s] = match.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number];
  const ms = (((d * 24 + h) * 60 + m) * 60 + s) * 1000;
  return ms > 0 ? ms : null;
}

/** The synced folders a command names: DIR's (DIR or a path inside it), or every one when none is given. */
export function namedRoots(paths: StatePaths, dir: string | undefined): string[] {
  const { roots } = loadConfig(paths);
  if (dir === undefined) {
    if (roots.length === 0) throw new CliError('no folder is synced yet (drivesync sync DIR syncs one)');
    return roots;
  }
  const found = findRoot(roots, canonicalPath(dir));
  if (!found) throw new CliError(`${dir} is not in a synced folder (drivesync status lists them)`);
  return [found.root];
}

/** Whether a process syncs the folder now, and which. */
export function runner(paths: StatePaths, root: string): number | null {
  const config = loadConfig(paths);
  const server = serverOf(config);
  return server ? runningSync(paths, root, server, emailFor(config, server)) : null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function registerControlCommands(program: Command): void {
  program
    .command('pause')
    .description('pause syncing a folder (every synced folder when none is named), until resumed or for a while')
    .argument('[dir]', 'a synced folder')
    .option('--for <duration>', 'resume by itself after this long: 30m, 2h, 1h30m, 1d')
    .action((dir: string | undefined, options: { for?: string }) => {
      const paths = statePaths();
      let until: Date | null = null;
      if (options.for !== undefined) {
        const ms = parseDuration(options.for);
        if (ms === null) throw usageError(`--for takes a duration such as 30m, 2h, 1h30m or 1d (got ${options.for})`);
        until = new Date(Date.now() + ms);
      }
      const roots = namedRoots(paths, dir);
      pauseFolders(paths, roots, until);
      for (const root of roots) {
        const pid = runner(paths, root);
        const how = until ? `until ${localTime(until.toISOString())}` : 'until you resume it';
        const who = pid ? `; the sync in process ${pid} pauses now` : '; it stays paused when it next starts';
        print(`paused ${safe(root)} ${how}${who}`);
      }
    });

  program
    .command('resume')
    .description('resume syncing a paused folder (every paused folder when none is named)')
    .argument('[dir]', 'a synced folder')
    .action((dir: string | undefined) => {
      const paths = statePaths();
      const roots = namedRoots(paths, dir);
      const resumed = new Set(resumeFolders(paths, roots));
      for (const root of roots) {
        if (!resumed.has(root)) {
          if (dir !== undefined) print(`${safe(root)} was not paused`);
          continue;
        }
        const pid = runner(paths, root);
        print(`resumed ${safe(root)}${pid ? `; the sync in process ${pid} goes on now` : ''}`);
      }
      if (dir === undefined && resumed.size === 0) print('no folder was paused');
    });

  program
    .command('remove')
    .description('stop syncing a folder: its files stay here and on the drive, and drivesync forgets it')
    .argument('<dir>', 'the synced folder')
    .action(async (dir: string) => {
      const paths = statePaths();
      const root = canonicalPath(dir);
      const config = loadConfig(paths);
      if (!config.roots.includes(root)) {
        const inside = findRoot(config.roots, root);
        throw new CliError(inside ? `${dir} is inside the synced folder ${inside.root}; remove that one` : `${dir} is not a synced folder (drivesync status lists them)`);
      }
      unlistFolder(paths, root);
      const server = serverOf(config);
      const email = server ? emailFor(config, server) : undefined;
      const pid = server ? runningSync(paths, root, server, email) : null;
      if (pid && server) {
        // The running sync sees the config change, stops and forgets the folder itself; it is given a while to.
        for (let waited = 0; waited < 20_000 && runningSync(paths, root, server, email) !== null; waited += 200) await sleep(200);
        if (runningSync(paths, root, server, email) !== null) {
          note(`the sync in process ${pid} has not stopped yet; it forgets ${root} when it does`);
          print(`stopped syncing ${safe(root)}; its files stay`);
          return;
        }
      }
      const { kept } = server ? forgetFolder(paths, root, server, email) : { kept: null };
      print(`stopped syncing ${safe(root)}${pid ? ` (the sync in process ${pid} stopped)` : ''}; its files stay, here and on the drive`);
      if (kept) note(`${kept} holds items that were on their way to the OS trash; move them where you want them`);
    });
}
