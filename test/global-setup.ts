/**
 * One scratch folder per test run: every temp folder the tests make (os.tmpdir() follows TMPDIR, in the test
 * processes and in what they spawn) lands in it, and it goes when the run ends, whatever a test left behind.
 * Files the tests move to the OS trash land in a trash of its own, never the machine user's; the file manager's
 * sockets of the syncs they run land in a runtime folder of its own.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const scratch = mkdtempSync(join(tmpdir(), 'drivesync-tests-'));
  const xdg = join(scratch, 'xdg-data');
  mkdirSync(xdg);
  process.env.TMPDIR = scratch;
  process.env.XDG_DATA_HOME = xdg;
  // The file manager's sockets of the syncs the tests run (docs/file-manager.md), away from the machine's own.
  const runtime = join(scratch, 'runtime');
  mkdirSync(runtime, { mode: 0o700 });
  process.env.XDG_RUNTIME_DIR = runtime;
  return () => rmSync(scratch, { recursive: true, force: true });
}
