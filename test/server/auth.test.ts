import { createHash } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { AuthResponse, ErrorBody, ValidationErrorBody } from '../../main/api/schemas.js';
import { useTestServer } from '../helpers/server.js';

const REGISTER = '/api/v1/auth/register';
const LOGIN = '/api/v1/auth/login';
const LISTING = '/api/v1/drive/file-entries';

describe('accounts and tokens', () => {
  const server = useTestServer({ tempDataDir: 'auth-test' });

  const register = (body: Record<string, unknown>) => server.call(null, 'POST', REGISTER, body);
  const login = (body: Record<string, unknown>) => server.call(null, 'POST', LOGIN, body);

  describe('register', () => {
    it('answers 200 with the user and a working access token', async () => {
      const answer = await register({ email: 'alice@example.com', password: 'alice-password', token_name: 'laptop' });
      expect(answer.status).toBe(200);
      expect(Value.Check(AuthResponse, answer.body)).toBe(true);
      expect(answer.body.status).toBeTypeOf('string');
      const user = answer.body.user;
      expect(user.email).toBe('alice@example.com');
      expect(user.id).toBeGreaterThan(0);
      expect(user.access_token).toBeTypeOf('string');
      expect(user.access_token.length).toBeGreaterThan(10);
      // Timestamps: ISO 8601 UTC with microseconds and a Z.
      expect(user.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

      const listing = await server.call(user.access_token, 'GET', LISTING);
      expect(listing.status).toBe(200);
    });

    it('accepts a matching password_confirmation', async () => {
      const answer = await register({
        email: 'confirmed@example.com',
        password: 'same-password',
        password_confirmation: 'same-password',
        token_name: 't',
      });
      expect(answer.status).toBe(200);
      expect(answer.body.user.email).toBe('confirmed@example.com');
    });

    it('refuses an e-mail already taken with 422 errors.email', async () => {
      await server.register('taken@example.com');
      const answer = await register({ email: 'taken@example.com', password: 'another-password', token_name: 't' });
      expect(answer.status).toBe(422);
      expect(Value.Check(ValidationErrorBody, answer.body)).toBe(true);
      expect(answer.body.errors).toHaveProperty('email');
      const count = server.context.db
        .prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM users WHERE email = ?')
        .get('taken@example.com');
      expect(count?.n).toBe(1);
    });

    it('refuses a password shorter than 6 characters with 422', async () => {
      const answer = await register({ email: 'short@example.com', password: '12345', token_name: 't' });
      expect(answer.status).toBe(422);
      expect(Value.Check(ValidationErrorBody, answer.body)).toBe(true);
      expect(answer.body.errors).toHaveProperty('password');
      // Nothing was created: the address is still free.
      const retry = await register({ email: 'short@example.com', password: '123456', token_name: 't' });
      expect(retry.status).toBe(200);
    });

    it('refuses a password_confirmation that does not match with 422', async () => {
      const answer = await register({
        email: 'mismatch@example.com',
        password: 'first-password',
        password_confirmation: 'other-password',
        token_name: 't',
      });
      expect(answer.status).toBe(422);
      expect(Value.Check(ValidationErrorBody, answer.body)).toBe(true);
      expect(Object.keys(answer.body.errors).length).toBeGreaterThan(0);
      const row = server.context.db.prepare('SELECT id FROM users WHERE email = ?').get('mismatch@example.com');
      expect(row).toBeUndefined();
    });

    it('refuses a missing token_name or a malformed e-mail with 422', async () => {
      const noName = await register({ email: 'noname@example.com', password: 'secret-password' });
      expect(noName.status).toBe(422);
      expect(noName.body.errors).toHaveProperty('token_name');
      const badEmail = await register({ email: 'not-an-email', password: 'secret-password', token_name: 't' });
      expect(badEmail.status).toBe(422);
      expect(badEmail.body.errors).toHaveProperty('email');
    });
  });

  describe('login', () => {
    it('answers 200 with a new token that works, and the old one keeps working', async () => {
      const { token: first } = await server.register('bob@example.com', 'bob-password');
      const answer = await login({ email: 'bob@example.com', password: 'bob-password', token_name: 'phone' });
      expect(answer.status).toBe(200);
      expect(Value.Check(AuthResponse, answer.body)).toBe(true);
      const second = answer.body.user.access_token as string;
      expect(second).toBeTypeOf('string');
      expect(second).not.toBe(first);
      expect(answer.body.user.email).toBe('bob@example.com');

      expect((await server.call(second, 'GET', LISTING)).status).toBe(200);
      expect((await server.call(first, 'GET', LISTING)).status).toBe(200);
    });

    it('gives the same account to both tokens', async () => {
      const { id, token } = await server.register('carol@example.com', 'carol-password');
      const answer = await login({ email: 'carol@example.com', password: 'carol-password', token_name: 'phone' });
      expect(answer.body.user.id).toBe(id);
      // A folder made with one token is listed with the other.
      const folder = await server.call(token, 'POST', '/api/v1/folders', { name: 'Carol docs', parentId: null });
      expect(folder.status).toBe(200);
      const listing = await server.call(answer.body.user.access_token, 'GET', LISTING);
      expect(listing.body.data.map((e: { id: number }) => e.id)).toContain(folder.body.folder.id);
    });

    it('refuses a wrong password with 422 errors.email', async () => {
      await server.register('dave@example.com', 'dave-password');
      const answer = await login({ email: 'dave@example.com', password: 'wrong-password', token_name: 't' });
      expect(answer.status).toBe(422);
      expect(Value.Check(ValidationErrorBody, answer.body)).toBe(true);
      expect(answer.body.errors).toHaveProperty('email');
      expect(answer.body.user).toBeUndefined();
    });

    it('refuses an unknown user with 422', async () => {
      const answer = await login({ email: 'nobody@example.com', password: 'whatever-password', token_name: 't' });
      expect(answer.status).toBe(422);
      expect(Value.Check(ValidationErrorBody, answer.body)).toBe(true);
      expect(answer.body.errors).toHaveProperty('email');
    });
  });

  describe('stored secrets', () => {
    it('keeps neither the plain password nor the plain token in users or tokens', async () => {
      const password = 'plain-text-password-1234';
      const reg = await register({ email: 'hashed@example.com', password, token_name: 'first' });
      expect(reg.status).toBe(200);
      const log = await login({ email: 'hashed@example.com', password, token_name: 'second' });
      expect(log.status).toBe(200);
      const tokens = [reg.body.user.access_token as string, log.body.user.access_token as string];

      const db = server.context.db;
      const users = db.prepare('SELECT * FROM users').all();
      const tokenRows = db.prepare('SELECT * FROM tokens').all() as Array<{ user_id: number; token_hash: string }>;
      const dump = JSON.stringify([users, tokenRows]);
      expect(dump).not.toContain(password);
      for (const token of tokens) expect(dump).not.toContain(token);

      // Passwords are scrypt hashes; tokens are kept as their sha256.
      const row = db
        .prepare<[string], { id: number; password_hash: string }>('SELECT id, password_hash FROM users WHERE email = ?')
        .get('hashed@example.com')!;
      expect(row.password_hash).toMatch(/^scrypt\$/);
      const mine = tokenRows.filter((t) => t.user_id === row.id).map((t) => t.token_hash);
      expect(mine).toHaveLength(2);
      for (const token of tokens) expect(mine).toContain(createHash('sha256').update(token).digest('hex'));
    });
  });

  describe('401', () => {
    it('answers {message} without a token, with an unknown token and with a malformed header', async () => {
      const cases: Array<Record<string, string>> = [
        {},
        { authorization: 'Bearer not-a-real-token' },
        { authorization: 'Basic dXNlcjpwYXNz' },
        { authorization: 'Bearer' },
      ];
      for (const headers of cases) {
        const answer = await server.call(null, 'GET', LISTING, undefined, headers);
        expect(answer.status, JSON.stringify(headers)).toBe(401);
        expect(Value.Check(ErrorBody, answer.body)).toBe(true);
        expect(answer.body.message).toBe('Unauthenticated.');
      }
    });

    it('answers 401 on a write too, and changes nothing', async () => {
      const answer = await server.call('bogus-token', 'POST', '/api/v1/folders', { name: 'Nope folder', parentId: null });
      expect(answer.status).toBe(401);
      expect(Value.Check(ErrorBody, answer.body)).toBe(true);
      const row = server.context.db.prepare('SELECT id FROM entries WHERE name = ?').get('Nope folder');
      expect(row).toBeUndefined();
    });
  });
});
