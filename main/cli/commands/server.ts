import type { Command } from 'commander';
import { Option } from 'commander';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
// The server's modules load only when a server command runs: every other command starts faster without them.
import type { ListFormat, ProfileName } from '../../../server/app.js';
import { CliError, usageError } from '../errors.js';

function wholeNumber(name: string, max: number) {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n > max) throw usageError(`${name} must be a whole number from 0 to ${max}`);
    return n;
  };
}

interface ServerOptions {
  data?: string;
  host: string;
  port: number;
  profile: ProfileName;
  listFormat?: ListFormat;
  latencyMs: number;
  faults?: string;
  log?: boolean;
}

export function registerServerCommand(program: Command): void {
  const server = program
    .command('server')
    .description('run the reference server of the service (both documents) on SQLite and local disk')
    .option('--data <dir>', 'where the database and stored files live (default: a new temp dir)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port; 0 picks a free one', wholeNumber('--port', 65535), 0)
    .addOption(
      new Option('--profile <profile>', 'answer as the documents say, or as the deployed versions do')
        .choices(['documents', 'deployed'])
        .default('documents'),
    )
    .addOption(new Option('--list-format <format>', 'shape of GET /drive/file-entries (default: paginator)').choices(['paginator', 'array']))
    .option('--latency-ms <n>', 'delay every request by this much', wholeNumber('--latency-ms', 60_000), 0)
    .option('--faults <spec>', 'inject faults, e.g. 500=0.1,429=0.05,retry-after=2,drop=0.02,apply-drop=0.02,match=POST:/api/v1/uploads,count=3,seed=7')
    .option('--log', 'print a log line per request')
    .action(runServer);

  server
    .command('add-list')
    .description('create a mailing list owned by an existing account; prints the new list id')
    .argument('<name>', 'the list name')
    .requiredOption('--owner <email>', 'e-mail of the account that owns the list')
    .option('--data <dir>', 'the server data directory')
    .option('--field <name...>', 'list-defined subscriber fields (default FIRST_NAME LAST_NAME)')
    .option('--double-opt-in', 'new subscribers start unconfirmed')
    .action(async (name: string, opts: { owner: string; data?: string; field?: string[]; doubleOptIn?: boolean }) => {
      // add-list's own --data: commander gives the parent's option to the parent, so read both.
      await addMailingList(name, { ...opts, data: opts.data ?? (server.opts() as { data?: string }).data });
    });
}

/** `drivesync server`: runs until SIGINT or SIGTERM. */
async function runServer(opts: ServerOptions): Promise<void> {
  const { FaultSpecError, parseFaultSpec } = await import('../../../server/faults.js');
  const { startServer } = await import('../../../server/app.js');
  let faults = null;
  try {
    faults = opts.faults ? parseFaultSpec(opts.faults) : null;
  } catch (error) {
    if (error instanceof FaultSpecError) throw usageError(`--faults: ${error.message}`);
    throw error;
  }
  await checkProfile(opts);
  const dataDir = opts.data ? resolve(opts.data) : mkdtempSync(join(tmpdir(), 'drivesync-server-'));
  const running = await startServer({
    dataDir,
    host: opts.host,
    port: opts.port,
    profile: opts.profile,
    ...(opts.listFormat ? { listFormat: opts.listFormat } : {}),
    latencyMs: opts.latencyMs,
    faults,
    log: opts.log === true,
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') throw new CliError(`port ${opts.port} on ${opts.host} is already in use`);
    if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') throw new CliError(`cannot listen on ${opts.host}`);
    throw error;
  });
  process.stdout.write(`listening on ${running.url}\n`);
  process.stderr.write(`data in ${dataDir}\n`);
  await new Promise<void>((done) => {
    const stop = () => void running.close().then(done, done);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** An impossible pair of options is a usage error, found before a data folder is made. */
async function checkProfile(opts: ServerOptions): Promise<void> {
  const { profileOf, ProfileError } = await import('../../../server/profile.js');
  try {
    profileOf(opts.profile, opts.listFormat);
  } catch (error) {
    if (error instanceof ProfileError) throw usageError(error.message);
    throw error;
  }
}

/** `drivesync server add-list NAME --owner EMAIL`: prints the new list's id. */
async function addMailingList(name: string, opts: { owner: string; data?: string; field?: string[]; doubleOptIn?: boolean }): Promise<void> {
  if (!opts.data) throw usageError('add-list needs --data DIR (the directory of the server the list belongs to)');
  const dir = resolve(opts.data);
  // Opening the database would create it: a mistyped --data must not leave a new, empty server behind.
  if (!existsSync(join(dir, 'server.sqlite'))) {
    throw new CliError(`no server data in ${dir} (run \`drivesync server --data ${dir}\` once first)`);
  }
  const { openDatabase } = await import('../../../server/db.js');
  const { addList, ListAdminError } = await import('../../../server/lists.js');
  const db = openDatabase(dir);
  try {
    const id = addList(db, name, opts.owner, { fields: opts.field, doubleOptIn: opts.doubleOptIn === true });
    process.stdout.write(`${id}\n`);
  } catch (error) {
    if (error instanceof ListAdminError) throw new CliError(error.message);
    throw error;
  } finally {
    db.close();
  }
}
