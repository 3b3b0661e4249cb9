import { Command, CommanderError } from 'commander';
import { CliError, fromState, oneLine, SilentExit } from './errors.js';
import { registerServerCommand } from './commands/server.js';
import { registerAuthCommands } from './commands/auth.js';
import { registerSyncCommand } from './commands/sync.js';
import { registerCheckCommand } from './commands/check.js';
import { registerControlCommands } from './commands/control.js';
import { registerDeletionsCommand } from './commands/deletions.js';
import { registerActivityCommand } from './commands/activity.js';
import { registerRunCommand } from './commands/run.js';
import { registerServiceCommands } from './commands/service.js';
import { registerSelectiveCommands } from './commands/selective.js';
import { registerStatusCommand } from './commands/status.js';
import { registerShareCommands } from './commands/share.js';
import { registerShareLs, registerSharedCommand } from './commands/access.js';
import { registerLinkCommand } from './commands/link.js';
import { registerEntryCommands } from './commands/entries.js';
import { registerVersionCommands } from './commands/versions.js';
import { registerListCommands } from './commands/lists.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerFileManagerCommands } from './commands/file-manager.js';
import { log, openLog } from './log.js';
import { statePaths } from '../state/paths.js';
import { VERSION } from '../api/version.js';

function buildProgram(): Command {
  const program = new Command('drivesync')
    .description('two-way sync of a local folder with your drive, plus sharing, links and mailing lists')
    .version(VERSION)
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({ outputError: () => undefined, writeErr: () => undefined });
  registerAuthCommands(program);
  registerSyncCommand(program);
  registerCheckCommand(program);
  registerControlCommands(program);
  registerDeletionsCommand(program);
  registerActivityCommand(program);
  registerRunCommand(program);
  registerServiceCommands(program);
  registerSelectiveCommands(program);
  registerStatusCommand(program);
  registerShareLs(registerShareCommands(program));
  registerSharedCommand(program);
  registerLinkCommand(program);
  registerEntryCommands(program);
  registerVersionCommands(program);
  registerListCommands(program);
  registerFileManagerCommands(program);
  registerDemoCommand(program);
  registerServerCommand(program);
  program.addHelpText(
    'after',
    '\nState (config, sync databases, logs) lives under $DRIVESYNC_HOME when set, else the XDG directories.\n' +
      'DRIVESYNC_TOKEN (and DRIVESYNC_SERVER) override the signed-in account. Exit codes: 0 ok, 1 failed, 2 usage error.',
  );
  const quiet = (command: Command) => {
    for (const sub of command.commands) {
      // Errors are one line (printed by main); help shown for an error would be more than one.
      sub.exitOverride().configureOutput({ outputError: () => undefined, writeErr: () => undefined });
      quiet(sub);
    }
  };
  quiet(program);
  return program;
}

/** The command's name and sub-command, for the log (never its arguments: they may hold a password). */
function commandName(argv: readonly string[]): string {
  return argv
    .slice(2)
    .filter((a) => !a.startsWith('-'))
    .slice(0, 2)
    .filter((a) => /^[a-z-]+$/.test(a))
    .join(' ');
}

/**
 * Commander's message as one line: its "(Did you mean star?)" comes on a line of its own, and is the part that
 * helps most.
 */
function usageLine(message: string): string {
  const [first = '', ...rest] = message.replace(/^error: /, '').split('\n');
  const suggestion = /^\(Did you mean (.+)\?\)$/.exec(rest.join(' ').trim());
  return suggestion ? `${first.trim()}; did you mean ${suggestion[1]}?` : first.trim() || 'usage error';
}

async function main(argv: string[]): Promise<number> {
  const command = commandName(argv);
  // The server command logs on its own terms; every other command logs to the state dir.
  if (command !== '' && !command.startsWith('server')) openLog(statePaths().logFile);
  log().info({ command, version: VERSION }, 'start');
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (thrown) {
    const error = fromState(thrown);
    if (error instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      if (error.exitCode === 0) return 0;
      if (error.code === 'commander.help') {
        process.stderr.write('drivesync: a command is needed (drivesync --help lists them)\n');
        return 2;
      }
      process.stderr.write(`drivesync: ${usageLine(error.message)}\n`);
      return 2;
    }
    if (error instanceof SilentExit) return error.exitCode;
    if (error instanceof CliError) {
      log().warn({ command, exitCode: error.exitCode, message: error.message }, 'failed');
      process.stderr.write(`drivesync: ${error.message.split('\n')[0]}\n`);
      return error.exitCode;
    }
    log().error({ command, message: oneLine(error) }, 'unexpected failure');
    process.stderr.write(`drivesync: ${oneLine(error)}\n`);
    return 1;
  }
}

// Whatever goes wrong outside a command's own flow is still one line, never a stack trace.
const fatal = (error: unknown) => {
  process.stderr.write(`drivesync: ${oneLine(error)}\n`);
  process.exit(1);
};
process.on('uncaughtException', fatal);
// Node's own warnings (e.g. MaxListenersExceededWarning) go to the log, not into the user's terminal.
process.removeAllListeners('warning');
process.on('warning', (warning) => log().warn({ warning: warning.name, message: warning.message }, 'node warning'));
// A reader that went away (`drivesync trash ls | head`) ends the command quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    fatal(error);
  });
}
process.on('unhandledRejection', fatal);

const code = await main(process.argv);
process.exitCode = code;
// A handle someone left open (a keep-alive socket, a keychain call that never answered) must not keep a finished
// command alive.
setTimeout(() => process.exit(code), 2_000).unref();
