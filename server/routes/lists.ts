import { Type } from '@sinclair/typebox';
import type { App, Context } from '../context.js';
import type { Db } from '../db.js';
import type { Profile } from '../profile.js';
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

/** The lists and subscribers a request names: a list only for its owner, a subscriber by uid or by e-mail. */
class ListLookup {
  private readonly listById;
  private readonly byUid;
  private readonly byEmail;

  constructor(db: Db) {
    this.listById = db.prepare<[string], ListRow>('SELECT * FROM lists WHERE id = ?');
    this.byUid = db.prepare<[string, string], SubscriberRow>('SELECT * FROM subscribers WHERE list_id = ? AND uid = ?');
    this.byEmail = db.prepare<[string, string], SubscriberRow>('SELECT * FROM subscribers WHERE list_id = ? AND email = ?');
  }

  ownedList(listId: string, userId: number): ListRow {
    const list = this.listById.get(listId);
    if (!list) throw notFound('List not found.');
    if (list.owner_id !== userId) throw forbidden('You do not have access to this list.');
    return list;
  }

  subscriberOf(list: ListRow, id: string): SubscriberRow {
    const row = EMAIL_LIKE.test(id) ? this.byEmail.get(list.id, id) : this.byUid.get(list.id, id);
    if (!row) throw notFound('Subscriber not found.');
    return row;
  }

  subscriberWithEmail(list: ListRow, email: string): SubscriberRow | undefined {
    return this.byEmail.get(list.id, email);
  }
}

/** A subscriber as the service answers it: every field the list defines, null when unset. */
function present(list: ListRow, row: SubscriberRow) {
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
}

/** The subscribers of the caller's mailing lists (lists-api.md): index, store, show, subscribe, unsubscribe, delete. */
export function listRoutes(app: App, { db, profile }: Context): void {
  const lookup = new ListLookup(db);
  registerSubscriberIndex(app, db, lookup);
  registerSubscriberStore(app, db, profile, lookup);
  registerSubscriberShow(app, lookup);
  registerStatusChanges(app, db, lookup);
  registerSubscriberDelete(app, db, lookup);
}

function registerSubscriberIndex(app: App, db: Db, lookup: ListLookup): void {
  app.get('/lists/:list_id/subscribers', { schema: { params: ListParams, querystring: IndexQuery } }, async (request) => {
    const list = lookup.ownedList(request.params.list_id, request.userId);
    const perPage = request.query.per_page ?? 25;
    const page = request.query.page ?? 1;
    return db
      .prepare<[string, number, number], SubscriberRow>(
        'SELECT * FROM subscribers WHERE list_id = ? ORDER BY seq LIMIT ? OFFSET ?',
      )
      .all(list.id, perPage, (page - 1) * perPage)
      .map((row) => present(list, row));
  });
}

/** Store is a GET with the subscriber in the query string; what an address the list has gets is the profile's. */
function registerSubscriberStore(app: App, db: Db, profile: Profile, lookup: ListLookup): void {
  const schema = { params: ListParams, querystring: StoreQuery };
  app.get('/lists/:list_id/subscribers/store', { schema }, async (request) => {
    const list = lookup.ownedList(request.params.list_id, request.userId);
    const { EMAIL, status, api_token: _token, ...rest } = request.query as Record<string, string>;
    const values = listFieldValues(list, rest);
    const asked = checkedStatus(status);
    const uid = db.transaction(() => {
      const existing = lookup.subscriberWithEmail(list, EMAIL!);
      if (existing && profile.existingSubscriber === 'update') return updateSubscriber(db, existing, values, asked);
      if (existing) throw invalid('EMAIL', 'The email has already been taken.');
      return insertSubscriber(db, list, EMAIL!, values, asked ?? (list.double_optin ? 'unconfirmed' : 'subscribed'));
    })();
    return { status: 'success', message: 'Subscriber was successfully created.', subscriber_uid: uid };
  });
}

/** The query's fields other than EMAIL and status; each must be one the list defines. */
function listFieldValues(list: ListRow, given: Record<string, string>): Record<string, string> {
  const allowed = JSON.parse(list.fields) as string[];
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(given)) {
    if (!allowed.includes(key)) throw invalid(key, `The list has no field ${key}.`);
    values[key] = value;
  }
  return values;
}

function checkedStatus(status: string | undefined): SubscriberStatus | undefined {
  if (status !== undefined && !(SUBSCRIBER_STATUSES as readonly string[]).includes(status)) {
    throw invalid('status', `The status must be one of ${SUBSCRIBER_STATUSES.join(', ')}.`);
  }
  return status as SubscriberStatus | undefined;
}

/** As deployed versions do with an address the list has: its fields merged, its status kept unless one is given. */
function updateSubscriber(
  db: Db,
  existing: SubscriberRow,
  values: Record<string, string>,
  status: SubscriberStatus | undefined,
): string {
  const merged = { ...(JSON.parse(existing.fields) as Record<string, string>), ...values };
  db.prepare('UPDATE subscribers SET fields = ?, status = ?, updated_at = ? WHERE uid = ?').run(
    JSON.stringify(merged),
    status ?? existing.status,
    timestamp(),
    existing.uid,
  );
  return existing.uid;
}

function insertSubscriber(
  db: Db,
  list: ListRow,
  email: string,
  values: Record<string, string>,
  status: SubscriberStatus,
): string {
  const seq = (db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM subscribers').get() as { n: number }).n;
  const id = listStyleId();
  const now = timestamp();
  db.prepare(
    'INSERT INTO subscribers (uid, list_id, email, status, fields, seq, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(id, list.id, email, status, JSON.stringify(values), seq, now, now);
  return id;
}

function registerSubscriberShow(app: App, lookup: ListLookup): void {
  app.get('/lists/:list_id/subscribers/:id', { schema: { params: SubscriberParams } }, async (request) => {
    const list = lookup.ownedList(request.params.list_id, request.userId);
    return { subscriber: present(list, lookup.subscriberOf(list, request.params.id)) };
  });
}

/** Subscribe and unsubscribe: a subscriber already there is a 409; a blacklisted or spam-reported one stays put. */
function registerStatusChanges(app: App, db: Db, lookup: ListLookup): void {
  const setStatus = (row: SubscriberRow, status: SubscriberStatus) =>
    db.prepare('UPDATE subscribers SET status = ?, updated_at = ? WHERE uid = ?').run(status, timestamp(), row.uid);

  app.get('/lists/:list_id/subscribers/:id/subscribe', { schema: { params: SubscriberParams } }, async (request) => {
    const list = lookup.ownedList(request.params.list_id, request.userId);
    const row = lookup.subscriberOf(list, request.params.id);
    if (row.status === 'subscribed') throw conflict('Already subscribed');
    if (row.status === 'blacklisted' || row.status === 'spam-reported') {
      throw forbidden(`A ${row.status} subscriber cannot be subscribed again.`);
    }
    setStatus(row, 'subscribed');
    return { status: 'success', message: 'Subscribed' };
  });

  app.get('/lists/:list_id/subscribers/:id/unsubscribe', { schema: { params: SubscriberParams } }, async (request) => {
    const list = lookup.ownedList(request.params.list_id, request.userId);
    const row = lookup.subscriberOf(list, request.params.id);
    if (row.status === 'unsubscribed') throw conflict('Already unsubscribed');
    if (row.status === 'blacklisted' || row.status === 'spam-reported') {
      throw forbidden(`A ${row.status} subscriber cannot be unsubscribed.`);
    }
    setStatus(row, 'unsubscribed');
    return { status: 'success', message: 'Unsubscribed' };
  });
}

function registerSubscriberDelete(app: App, db: Db, lookup: ListLookup): void {
  app.delete('/lists/:list_id/subscribers/:id/delete', { schema: { params: SubscriberParams } }, async (request) => {
    const list = lookup.ownedList(request.params.list_id, request.userId);
    const row = lookup.subscriberOf(list, request.params.id);
    db.prepare('DELETE FROM subscribers WHERE uid = ?').run(row.uid);
    return { status: 'success', message: 'Deleted' };
  });
}
