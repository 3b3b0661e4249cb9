import { Type } from '@sinclair/typebox';
import type { App, Context } from '../context.js';
import { timestamp } from '../clock.js';
import { conflict, forbidden, invalid, notFound } from '../errors.js';
import { listStyleId } from '../secrets.js';
import { SUBSCRIBER_STATUSES, type SubscriberStatus } from '../../main/api/schemas.js';

interface ListRow {
  id: string;
  name: string;
  owner_id: number;
  fields: string;
  double_optin: number;
}

interface SubscriberRow {
  uid: string;
  list_id: string;
  email: string;
  status: SubscriberStatus;
  fields: string;
  seq: number;
  created_at: string;
  updated_at: string;
}

const ListParams = Type.Object({ list_id: Type.String({ minLength: 1, maxLength: 64 }) });
const SubscriberParams = Type.Object({
  list_id: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.String({ minLength: 1, maxLength: 320 }),
});
const IndexQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  api_token: Type.Optional(Type.String()),
});
/** Store takes the subscriber's fields in the query string: EMAIL plus the list's own fields (and a status). */
const StoreQuery = Type.Object(
  {
    EMAIL: Type.String({ minLength: 3, maxLength: 320, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' }),
    status: Type.Optional(Type.String({ maxLength: 32 })),
    api_token: Type.Optional(Type.String()),
  },
  { additionalProperties: Type.String({ maxLength: 255 }) },
);

const EMAIL_LIKE = /@/;

export function listRoutes(app: App, { db, profile }: Context): void {
  const listById = db.prepare<[string], ListRow>('SELECT * FROM lists WHERE id = ?');
  const byUid = db.prepare<[string, string], SubscriberRow>('SELECT * FROM subscribers WHERE list_id = ? AND uid = ?');
  const byEmail = db.prepare<[string, string], SubscriberRow>('SELECT * FROM subscribers WHERE list_id = ? AND email = ?');

  const ownedList = (listId: string, userId: number): ListRow => {
    const list = listById.get(listId);
    if (!list) throw notFound('List not found.');
    if (list.owner_id !== userId) throw forbidden('You do not have access to this list.');
    return list;
  };

  const subscriberOf = (list: ListRow, id: string): SubscriberRow => {
    const row = EMAIL_LIKE.test(id) ? byEmail.get(list.id, id) : byUid.get(list.id, id);
    if (!row) throw notFound('Subscriber not found.');
    return row;
  };

  const present = (list: ListRow, row: SubscriberRow) => {
    const values = JSON.parse(row.fields) as Record<string, string>;
    const fields: Record<string, string | null> = {};
    for (const name of JSON.parse(list.fields) as string[]) fields[name] = values[name] ?? null;
    return {
      uid: row.uid,
      email: row.email,
      status: row.status,
      ...fields,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  };

  const setStatus = (row: SubscriberRow, status: SubscriberStatus) =>
    db.prepare('UPDATE subscribers SET status = ?, updated_at = ? WHERE uid = ?').run(status, timestamp(), row.uid);

  app.get('/lists/:list_id/subscribers', { schema: { params: ListParams, querystring: IndexQuery } }, async (request) => {
    const list = ownedList(request.params.list_id, request.userId);
    const perPage = request.query.per_page ?? 25;
    const page = request.query.page ?? 1;
    return db
      .prepare<[string, number, number], SubscriberRow>(
        'SELECT * FROM subscribers WHERE list_id = ? ORDER BY seq LIMIT ? OFFSET ?',
      )
      .all(list.id, perPage, (page - 1) * perPage)
      .map((row) => present(list, row));
  });

  app.get('/lists/:list_id/subscribers/store', { schema: { params: ListParams, querystring: StoreQuery } }, async (request) => {
    const list = ownedList(request.params.list_id, request.userId);
    const { EMAIL, status, api_token: _token, ...rest } = request.query as Record<string, string>;
    const allowed = JSON.parse(list.fields) as string[];
    const values: Record<string, string> = {};
    for (const [key, value] of Object.entries(rest)) {
      if (!allowed.includes(key)) throw invalid(key, `The list has no field ${key}.`);
      values[key] = value;
    }
    if (status !== undefined && !(SUBSCRIBER_STATUSES as readonly string[]).includes(status)) {
      throw invalid('status', `The status must be one of ${SUBSCRIBER_STATUSES.join(', ')}.`);
    }
    const initial = (status as SubscriberStatus | undefined) ?? (list.double_optin ? 'unconfirmed' : 'subscribed');
    const uid = db.transaction(() => {
      const existing = byEmail.get(list.id, EMAIL!);
      if (existing && profile.existingSubscriber === 'update') {
        const merged = { ...(JSON.parse(existing.fields) as Record<string, string>), ...values };
        db.prepare('UPDATE subscribers SET fields = ?, status = ?, updated_at = ? WHERE uid = ?').run(
          JSON.stringify(merged),
          (status as SubscriberStatus | undefined) ?? existing.status,
          timestamp(),
          existing.uid,
        );
        return existing.uid;
      }
      if (existing) throw invalid('EMAIL', 'The email has already been taken.');
      const seq = (db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM subscribers').get() as { n: number }).n;
      const id = listStyleId();
      const now = timestamp();
      db.prepare(
        'INSERT INTO subscribers (uid, list_id, email, status, fields, seq, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(id, list.id, EMAIL, initial, JSON.stringify(values), seq, now, now);
      return id;
    })();
    return { status: 'success', message: 'Subscriber was successfully created.', subscriber_uid: uid };
  });

  app.get('/lists/:list_id/subscribers/:id', { schema: { params: SubscriberParams } }, async (request) => {
    const list = ownedList(request.params.list_id, request.userId);
    return { subscriber: present(list, subscriberOf(list, request.params.id)) };
  });

  app.get('/lists/:list_id/subscribers/:id/subscribe', { schema: { params: SubscriberParams } }, async (request) => {
    const list = ownedList(request.params.list_id, request.userId);
    const row = subscriberOf(list, request.params.id);
    if (row.status === 'subscribed') throw conflict('Already subscribed');
    if (row.status === 'blacklisted' || row.status === 'spam-reported') {
      throw forbidden(`A ${row.status} subscriber cannot be subscribed again.`);
    }
    setStatus(row, 'subscribed');
    return { status: 'success', message: 'Subscribed' };
  });

  app.get('/lists/:list_id/subscribers/:id/unsubscribe', { schema: { params: SubscriberParams } }, async (request) => {
    const list = ownedList(request.params.list_id, request.userId);
    const row = subscriberOf(list, request.params.id);
    if (row.status === 'unsubscribed') throw conflict('Already unsubscribed');
    if (row.status === 'blacklisted' || row.status === 'spam-reported') {
      throw forbidden(`A ${row.status} subscriber cannot be unsubscribed.`);
    }
    setStatus(row, 'unsubscribed');
    return { status: 'success', message: 'Unsubscribed' };
  });

  app.delete('/lists/:list_id/subscribers/:id/delete', { schema: { params: SubscriberParams } }, async (request) => {
    const list = ownedList(request.params.list_id, request.userId);
    const row = subscriberOf(list, request.params.id);
    db.prepare('DELETE FROM subscribers WHERE uid = ?').run(row.uid);
    return { status: 'success', message: 'Deleted' };
  });
}
