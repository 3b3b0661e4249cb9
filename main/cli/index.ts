import { Command, CommanderError } from 'commander';
import { CliError, oneLine } from './errors.js';
import { registerServerCommand } from './commands/server.js';
import { VERSION } from '../api/version.js';


function buildProgram(): Command {
  const program = new Command('drivesync')
    .description('two-way sync of a local folder with your drive, plus sharing, links and mailing lists')
    .version(VERSION)
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({ outputError: () => undefined });
  registerServerCommand(program);
  const quiet = (command: Command) => {
    for (const sub of command.commands) {
      sub.exitOverride().configureOutput({ outputError: () => undefined });
      quiet(sub);
    }
  };
  quiet(program);
  return program;
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      if (error.exitCode === 0) return 0;
      process.stderr.write(`drivesync: ${oneLine(error).replace(/^error: /, '')}\n`);
      return 2;
    }
    if (error instanceof CliError) {
      process.stderr.write(`drivesync: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`drivesync: ${oneLine(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv);
