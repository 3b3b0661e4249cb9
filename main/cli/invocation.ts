/**
 * How to run this very `drivesync` from any shell: commands printed for a person to paste (the demo's "try next")
 * must work in a new terminal, where the project's `npx drivesync` does not and `drivesync` is on PATH only once
 * installed.
 */
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** bin/drivesync.js of this copy (this file is dist/main/cli/invocation.js). */
const OWN_BIN = fileURLToPath(new URL('../../../bin/drivesync.js', import.meta.url));

/** A word as the shell reads it back: bare when it is safe, else in single quotes. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function realpath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** Whether `drivesync` on PATH is this same program. */
function onPath(env: NodeJS.ProcessEnv): boolean {
  const own = realpath(OWN_BIN);
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'drivesync');
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    return realpath(candidate) === own;
  }
  return false;
}

/** `drivesync` when PATH finds this copy, else this node and this copy's bin/drivesync.js by absolute path. */
export function drivesyncCommand(env: NodeJS.ProcessEnv = process.env): string {
  return onPath(env) ? 'drivesync' : `${shellWord(process.execPath)} ${shellWord(OWN_BIN)}`;
}
