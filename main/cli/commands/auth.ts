/** register, login, logout: the account's token in the OS keychain (or the fallback file), its server in the config. */
import type { Command } from 'commander';
import { hostname } from 'node:os';
import { read } from 'read';
import { ApiError, notADriveService } from '../../api/errors.js';
import { loadConfig, saveConfig } from '../../state/config.js';
import { removeToken, storeToken } from '../../state/credentials.js';
import { CliError, describeApiError, usageError } from '../errors.js';
import { log } from '../log.js';
import { note, print } from '../output.js';
import { statePaths } from '../../state/paths.js';
import { assumedScheme, normaliseServer, notADrive } from '../../state/server.js';
import { newClient } from '../session.js';

interface SignInOptions {
  server: string;
  email: string;
  password?: string;
  passwordStdin?: boolean;
}

/** The first line of standard input (a script's way to give the password). */
async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

/** Asks on the terminal without echo; a new account's password is asked twice, so a typo cannot lock it out. */
async function askPassword(mode: 'register' | 'login'): Promise<string> {
  const ask = async (prompt: string) => {
    try {
      const answer = await read({ prompt, silent: true, replace: '', output: process.stderr });
      // Silent input echoes nothing, not even the Enter that ended it.
      process.stderr.write('\n');
      return answer;
    } catch {
      // read rejects on Ctrl-C and Ctrl-D.
      throw new CliError(`${mode} cancelled`);
    }
  };
  const password = await ask('Password: ');
  if (mode === 'login' || password === '') return password;
  if ((await ask('Repeat password: ')) !== password) throw new CliError('register failed: the two passwords differ; nothing was created');
  return password;
}

async function signIn(mode: 'register' | 'login', options: SignInOptions): Promise<void> {
  const server = normaliseServer(options.server);
  const email = options.email.trim();
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw usageError(`--email must be an e-mail address (got ${options.email})`);
  if (options.password !== undefined && options.passwordStdin) throw usageError('give --password or --password-stdin, not both');
  const onTerminal = process.stdin.isTTY === true && process.stderr.isTTY === true;
  if (options.password === undefined && !options.passwordStdin && !onTerminal) {
    throw usageError('standard input is not a terminal, so the password cannot be asked: give --password-stdin (or --password P)');
  }
  const scheme = assumedScheme(options.server);
  if (scheme) note(`assuming ${server} (${scheme === 'http' ? 'http:// on this computer' : 'https://'}; give the address with its scheme to choose)`);
  const password = options.password ?? (options.passwordStdin ? await readPasswordFromStdin() : await askPassword(mode));
  if (password === '') throw usageError('the password is empty');

  const paths = statePaths();
  const config = loadConfig(paths);
  const client = await newClient(server, undefined);
  let token: string;
  try {
    const credentials = { email, password, tokenName: `drivesync CLI on ${hostname()}` };
    const session = mode === 'register' ? await client.auth.register(credentials) : await client.auth.login(credentials);
    token = session.token;
  } catch (error) {
    log().warn({ command: mode, server, email, kind: (error as ApiError).kind }, `${mode} failed`);
    if (error instanceof ApiError) {
      const reason = notADrive(error)
        ? `${notADriveService(error, server)}; check the address`
        : error.kind === 'invalid'
          ? error.message.split('\n')[0]!
          : describeApiError(error, server);
      throw new CliError(`${mode} failed: ${reason}`);
    }
    throw error;
  }
  // Another account's token is not left behind when this one takes its place.
  if (config.server && config.email && (config.server !== server || config.email !== email)) {
    await removeToken(paths, config.server, config.email);
  }
  const stored = await storeToken(paths, server, email, token, note);
  saveConfig(paths, { ...config, server, email });
  log().info({ command: mode, server, email, stored: stored.where }, 'signed in');
  const where = stored.where === 'keychain' ? 'the token is in the OS keychain' : `the token is in ${paths.tokenFile}`;
  print(`${mode === 'register' ? 'registered and signed in' : 'signed in'} as ${email} on ${server} (${where})`);
}

export function registerAuthCommands(program: Command): void {
  for (const mode of ['register', 'login'] as const) {
    program
      .command(mode)
      .description(mode === 'register' ? 'create an account on the server and sign in to it' : 'sign in to an account')
      .requiredOption('--server <url>', 'the service, e.g. https://drive.example.com or 127.0.0.1:8080 (http:// is assumed on this computer, https:// elsewhere)')
      .requiredOption('--email <email>', 'the account e-mail')
      .option('--password <password>', 'the password (visible to other local users in the process list; prefer --password-stdin)')
      .option('--password-stdin', 'read the password from the first line of standard input (without either, it is asked on the terminal)')
      .action((options: SignInOptions) => signIn(mode, options));
  }

  program
    .command('logout')
    .description('sign out: remove the token from the OS keychain and the fallback file')
    .action(async () => {
      const paths = statePaths();
      const config = loadConfig(paths);
      const removed = await removeToken(paths, config.server, config.email);
      log().info({ command: 'logout', server: config.server, email: config.email, ...removed }, 'signed out');
      if (removed.keychain || removed.file) {
        const from = [removed.keychain ? 'the OS keychain' : null, removed.file ? paths.tokenFile : null].filter(Boolean).join(' and ');
        print(`signed out of ${config.email ?? 'the account'} on ${config.server ?? 'the server'} (token removed from ${from})`);
      } else {
        print('not signed in; nothing to remove');
      }
      if (process.env.DRIVESYNC_TOKEN?.trim()) note('DRIVESYNC_TOKEN is still set in the environment and is used while it is');
    });
}
