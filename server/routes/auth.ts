import { Type } from '@sinclair/typebox';
import type { App, Context } from '../context.js';
import { timestamp } from '../clock.js';
import { invalid } from '../errors.js';
import { hashPassword, hashToken, newToken, verifyPassword } from '../secrets.js';
import { serializeUser, type UserRow } from '../serialize.js';

const EMAIL = '^[^\\s@]{1,64}@[^\\s@]{1,255}$';
const Credentials = Type.Object({
  email: Type.String({ pattern: EMAIL, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
  token_name: Type.String({ minLength: 1, maxLength: 255 }),
});
const Register = Type.Object({
  email: Type.String({ pattern: EMAIL, maxLength: 320 }),
  password: Type.String({ minLength: 6, maxLength: 1024 }),
  token_name: Type.String({ minLength: 1, maxLength: 255 }),
  password_confirmation: Type.Optional(Type.String({ maxLength: 1024 })),
  first_name: Type.Optional(Type.String({ maxLength: 255 })),
  last_name: Type.Optional(Type.String({ maxLength: 255 })),
});

export function authRoutes(app: App, { db, profile }: Context): void {
  const userByEmail = db.prepare<[string], UserRow>('SELECT * FROM users WHERE email = ?');
  const issueToken = (userId: number, name: string) => {
    const token = newToken();
    db.prepare('INSERT INTO tokens (user_id, name, token_hash, created_at) VALUES (?, ?, ?, ?)').run(
      userId,
      name,
      hashToken(token),
      timestamp(),
    );
    return token;
  };

  app.post('/auth/register', { schema: { body: Register } }, async (request) => {
    const { email, password, token_name, password_confirmation, first_name, last_name } = request.body;
    const confirmation = profile.registerNeedsConfirmation ? password_confirmation ?? '' : password_confirmation;
    if (confirmation !== undefined && confirmation !== password) {
      throw invalid('password', 'The password confirmation does not match.');
    }
    if (userByEmail.get(email)) throw invalid('email', 'The email has already been taken.');
    const hash = await hashPassword(password);
    const now = timestamp();
    const displayName = [first_name, last_name].filter(Boolean).join(' ') || email.split('@')[0]!;
    const created = db.transaction(() => {
      if (userByEmail.get(email)) throw invalid('email', 'The email has already been taken.');
      const info = db
        .prepare(
          `INSERT INTO users (email, password_hash, display_name, first_name, last_name, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(email, hash, displayName, first_name ?? null, last_name ?? null, now, now);
      const id = Number(info.lastInsertRowid);
      return { user: db.prepare<[number], UserRow>('SELECT * FROM users WHERE id = ?').get(id)!, token: issueToken(id, token_name) };
    })();
    return profile.registerAnswer(serializeUser(created.user, created.token));
  });

  app.post('/auth/login', { schema: { body: Credentials } }, async (request) => {
    const { email, password, token_name } = request.body;
    const user = userByEmail.get(email);
    const ok = user ? await verifyPassword(password, user.password_hash) : false;
    if (!user || !ok) throw invalid('email', 'These credentials do not match our records.');
    return { status: 'success', user: serializeUser(user, issueToken(user.id, token_name)) };
  });
}
