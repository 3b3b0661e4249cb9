/**
 * The host's account job: signing in (or registering) and out, the token in the shared keychain entry, and the
 * client the other jobs call the service with. Signing in starts the account's folders; signing out stops them.
 */
import { mkdirSync } from 'node:fs';
import { DriveClient } from '../../api/client.js';
import { ApiError, notADriveService } from '../../api/errors.js';
import type { Account, SignInInput } from '../../contract/index.js';
import { clientTimeouts, saveConfig } from '../../state/config.js';
import { ServerAddressError } from '../../state/errors.js';
import { canonicalPath } from '../../state/roots.js';
import { emailFor, normaliseServer as normalise, notADrive, serverOf } from '../../state/server.js';
import { bandwidthOf, type HandlersOf, type HostContext } from './context.js';
import type { Feed } from './feed.js';
import type { Folders } from './folders.js';
import { HostError } from './failures.js';
import { keychainTokens, type TokenStore } from './tokens.js';

const TOKEN_NAME = 'drivesync desktop';

/** The server address, or the form's refusal in the window's words. */
function normaliseServer(text: string): string {
  try {
    return normalise(text);
  } catch (error) {
    if (!(error instanceof ServerAddressError)) throw error;
    if (error.reason === 'not-a-url') {
      throw new HostError('invalid', 'The server must be a URL such as https://drive.example.com.', { server: 'Enter a URL such as https://drive.example.com.' });
    }
    throw new HostError('invalid', 'The server must start with http:// or https://.', { server: 'The address must start with http:// or https://.' });
  }
}

/** A refused sign-in says so once, in words, instead of the server's message both above the form and under a field. */
function wrongCredentials(error: unknown): never {
  if (error instanceof ApiError && (error.kind === 'invalid' || error.kind === 'unauthorized')) {
    throw new HostError(error.kind, 'The e-mail address or the password is not right. Check both and try again.');
  }
  throw error;
}

/** A web server that is not a drive says so, rather than "the server failed; try again later". */
function noDriveThere(server: string) {
  return (error: unknown): never => {
    if (error instanceof ApiError && notADrive(error)) throw new HostError(error.kind, `${notADriveService(error, server)}. Check the address.`);
    throw error;
  };
}

export class AccountJob {
  private readonly tokens: TokenStore;

  constructor(
    private readonly host: HostContext,
    private readonly folders: Folders,
    private readonly feed: Feed,
    /** Tells the window the settings after a sign-in (the folders may have changed). */
    private readonly settingsChanged: () => void,
  ) {
    this.tokens = host.options.tokens ?? keychainTokens(host.paths, host.options.env);
  }

  readonly handlers: HandlersOf<'auth:sign-in' | 'auth:sign-out'> = {
    'auth:sign-in': (input) => this.host.exclusive(() => this.signIn(input)),
    'auth:sign-out': () =>
      this.host.exclusive(async () => {
        await this.signOut(true);
        this.feed.emitState();
      }),
  };

  /** Signs in with the stored token of the configured account, if it has one. */
  async resume(): Promise<void> {
    const { config, options } = this.host;
    const server = serverOf(config, options.env ?? process.env);
    const email = emailFor(config, server);
    if (!server || !email) return;
    const token = await this.tokens.load(server, email).catch(() => null);
    if (!token) return;
    this.signedIn({ server, email }, token);
    await this.folders.start();
  }

  private async signIn(input: SignInInput): Promise<Account> {
    const { host } = this;
    const server = normaliseServer(input.server);
    const email = input.email.trim();
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
      throw new HostError('invalid', 'Enter the e-mail address of your account.', { email: 'Enter an e-mail address such as you@example.com.' });
    }
    const anonymous = new DriveClient({ origin: server, retry: host.options.retry ?? { limit: 2, baseDelayMs: 300 } });
    const credentials = { email, password: input.password, tokenName: TOKEN_NAME };
    const session = await (input.register ? anonymous.auth.register(credentials) : anonymous.auth.login(credentials).catch(wrongCredentials)).catch(
      noDriveThere(server),
    );
    if (host.account) await this.signOut(false);
    await this.tokens.save(server, email, session.token, (line) => host.notice(null, line));
    const config = host.readConfig();
    config.server = server;
    config.email = email;
    if (config.roots.length === 0) {
      mkdirSync(host.options.defaultFolder, { recursive: true });
      config.roots = [canonicalPath(host.options.defaultFolder)];
    }
    saveConfig(host.paths, config);
    host.config = config;
    this.signedIn({ server, email }, session.token);
    await this.folders.start();
    this.feed.emitState();
    this.settingsChanged();
    return { server, email };
  }

  private async signOut(forgetToken: boolean): Promise<void> {
    const { host } = this;
    await this.folders.stop();
    if (forgetToken && host.account) await this.tokens.remove(host.account.server, host.account.email).catch(() => undefined);
    host.account = null;
    host.client = null;
    this.feed.pending.clear();
  }

  private signedIn(account: Account, token: string): void {
    const { host } = this;
    host.account = account;
    host.client = new DriveClient({
      origin: account.server,
      token,
      retry: host.options.retry ?? { limit: 4, baseDelayMs: 500 },
      // The config's deadlines only: a bad environment variable is the command line's to report.
      timeouts: clientTimeouts(host.config, {}),
      bandwidth: bandwidthOf(host.config, host.desktop),
    });
  }
}
