import type { Http } from './http.js';
import { BadResponseError } from './errors.js';
import { AnyAuthResponse } from './checks.js';
import type { User } from './schemas.js';

export interface Credentials {
  email: string;
  password: string;
  /** A label for the issued token, shown in the account's token list. */
  tokenName: string;
}

export interface Session {
  user: User;
  token: string;
}

/** Register and login; both answer the user with a fresh access token. */
export class AuthApi {
  constructor(private readonly http: Http) {}

  async register(credentials: Credentials): Promise<Session> {
    return this.call('POST /auth/register', 'auth/register', {
      email: credentials.email,
      password: credentials.password,
      // Some deployments require the confirmation; sending it always is harmless.
      password_confirmation: credentials.password,
      token_name: credentials.tokenName,
    });
  }

  async login(credentials: Credentials): Promise<Session> {
    return this.call('POST /auth/login', 'auth/login', {
      email: credentials.email,
      password: credentials.password,
      token_name: credentials.tokenName,
    });
  }

  private async call(endpoint: string, path: string, json: Record<string, string>): Promise<Session> {
    const { body } = await this.http.json({ endpoint, method: 'POST', path, json, check: AnyAuthResponse });
    // Some deployments nest the user under bootstrapData.
    const user = 'user' in body ? body.user : body.bootstrapData.user;
    if (!user.access_token) throw new BadResponseError(endpoint, 'the answer carries no access token');
    return { user, token: user.access_token };
  }
}
