import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import {
  ErrorBody,
  MessageResponse,
  SubscriberList,
  SubscriberShowResponse,
  SubscriberStoreResponse,
  ValidationErrorBody,
} from '../../main/api/schemas.js';
import { addList, ListAdminError } from '../../server/lists.js';
import { useTestServer, type Answer } from '../helpers/server.js';

const HEX13 = /^[0-9a-f]{13}$/;

interface Subscriber {
  uid: string;
  email: string;
  status: string;
  [field: string]: string | null;
}

describe('mailing lists', () => {
  const server = useTestServer({ tempDataDir: 'lists-test' });
  let seq = 0;

  /** A fresh owner with a fresh list (FIRST_NAME, LAST_NAME unless told otherwise). */
  const ownerWithList = async (options: { fields?: string[]; doubleOptIn?: boolean } = {}) => {
    const email = `owner-${++seq}@example.com`;
    const { id, token } = await server.register(email);
    const listId = addList(server.context.db, `List ${seq}`, email, options);
    return { id, token, email, listId };
  };

  const base = (listId: string) => `/api/v1/lists/${listId}/subscribers`;
  const query = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

  const store = (token: string | null, listId: string, fields: Record<string, string>) =>
    server.call(token, 'GET', `${base(listId)}/store?${query(fields)}`);

  const stored = async (token: string, listId: string, fields: Record<string, string>): Promise<string> => {
    const answer = await store(token, listId, fields);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(Value.Check(SubscriberStoreResponse, answer.body)).toBe(true);
    return answer.body.subscriber_uid as string;
  };

  const show = (token: string, listId: string, id: string) => server.call(token, 'GET', `${base(listId)}/${id}`);
  const shown = async (token: string, listId: string, id: string): Promise<Subscriber> => {
    const answer = await show(token, listId, id);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(Value.Check(SubscriberShowResponse, answer.body)).toBe(true);
    return answer.body.subscriber;
  };

  const index = async (token: string, listId: string, params = ''): Promise<Subscriber[]> => {
    const answer = await server.call(token, 'GET', `${base(listId)}${params}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(Value.Check(SubscriberList, answer.body)).toBe(true);
    return answer.body;
  };

  const expectValidation = (answer: Answer, field: string) => {
    expect(answer.status, JSON.stringify(answer.body)).toBe(422);
    expect(Value.Check(ValidationErrorBody, answer.body)).toBe(true);
    expect(answer.body.errors).toHaveProperty(field);
  };

  const expectMessage = (answer: Answer, status: number, message?: string) => {
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    expect(Value.Check(ErrorBody, answer.body)).toBe(true);
    if (message !== undefined) expect(answer.body.message).toBe(message);
  };

  describe('addList', () => {
    it('answers a 13-hex id and refuses an unknown owner or a bad field', async () => {
      const { listId, email } = await ownerWithList();
      expect(listId).toMatch(HEX13);
      expect(() => addList(server.context.db, 'Nope', 'nobody@example.com')).toThrow(ListAdminError);
      expect(() => addList(server.context.db, 'Bad', email, { fields: ['EMAIL'] })).toThrow(ListAdminError);
      expect(() => addList(server.context.db, '   ', email)).toThrow(ListAdminError);
      const ids = new Set([listId, addList(server.context.db, 'Second', email), addList(server.context.db, 'Third', email)]);
      expect(ids.size).toBe(3);
      for (const id of ids) expect(id).toMatch(HEX13);
    });
  });

  describe('store', () => {
    it('creates a subscriber from the query string with the list\'s fields', async () => {
      const { token, listId } = await ownerWithList();
      const uid = await stored(token, listId, { EMAIL: 'ann@example.com', FIRST_NAME: 'Ann', LAST_NAME: 'Lee' });
      expect(uid).toMatch(HEX13);
      const subscriber = await shown(token, listId, uid);
      expect(subscriber).toMatchObject({
        uid,
        email: 'ann@example.com',
        status: 'subscribed',
        FIRST_NAME: 'Ann',
        LAST_NAME: 'Lee',
      });
    });

    it('answers {status, message, subscriber_uid}', async () => {
      const { token, listId } = await ownerWithList();
      const answer = await store(token, listId, { EMAIL: 'shape@example.com' });
      expect(answer.status).toBe(200);
      expect(Value.Check(SubscriberStoreResponse, answer.body)).toBe(true);
      expect(answer.body.status).toBeTypeOf('string');
      expect(answer.body.message).toBeTypeOf('string');
      expect(answer.body.subscriber_uid).toMatch(HEX13);
    });

    it('requires EMAIL (422)', async () => {
      const { token, listId } = await ownerWithList();
      expectValidation(await store(token, listId, { FIRST_NAME: 'No email' }), 'EMAIL');
      expect(await index(token, listId)).toEqual([]);
    });

    it('refuses a field the list does not define (422)', async () => {
      const { token, listId } = await ownerWithList();
      expectValidation(await store(token, listId, { EMAIL: 'field@example.com', NICKNAME: 'nick' }), 'NICKNAME');
      expect(await index(token, listId)).toEqual([]);

      const custom = await ownerWithList({ fields: ['CITY'] });
      const uid = await stored(custom.token, custom.listId, { EMAIL: 'city@example.com', CITY: 'Oslo' });
      expect(await shown(custom.token, custom.listId, uid)).toMatchObject({ CITY: 'Oslo' });
      expectValidation(await store(custom.token, custom.listId, { EMAIL: 'first@example.com', FIRST_NAME: 'X' }), 'FIRST_NAME');
    });

    it('refuses an e-mail already in the list (422), but the same e-mail in another list is fine', async () => {
      const { token, listId, email } = await ownerWithList();
      await stored(token, listId, { EMAIL: 'dup@example.com' });
      expectValidation(await store(token, listId, { EMAIL: 'dup@example.com', FIRST_NAME: 'Again' }), 'EMAIL');
      expect((await index(token, listId)).map((s) => s.email)).toEqual(['dup@example.com']);

      const otherList = addList(server.context.db, 'Other', email);
      expect(await stored(token, otherList, { EMAIL: 'dup@example.com' })).toMatch(HEX13);
    });

    it('refuses a bad e-mail (422)', async () => {
      const { token, listId } = await ownerWithList();
      for (const bad of ['not-an-email', 'two@@example.com', 'space @example.com', '@example.com']) {
        expectValidation(await store(token, listId, { EMAIL: bad }), 'EMAIL');
      }
      expect(await index(token, listId)).toEqual([]);
    });

    it('takes a status, and refuses an unknown one (422)', async () => {
      const { token, listId } = await ownerWithList();
      for (const status of ['unsubscribed', 'unconfirmed', 'blacklisted', 'spam-reported', 'subscribed']) {
        const uid = await stored(token, listId, { EMAIL: `${status}@example.com`, status });
        expect((await shown(token, listId, uid)).status).toBe(status);
      }
      expectValidation(await store(token, listId, { EMAIL: 'weird@example.com', status: 'sleeping' }), 'status');
    });

    it('starts subscribers unconfirmed on a double opt-in list', async () => {
      const { token, listId } = await ownerWithList({ doubleOptIn: true });
      const uid = await stored(token, listId, { EMAIL: 'optin@example.com' });
      expect((await shown(token, listId, uid)).status).toBe('unconfirmed');
      const subscribe = await server.call(token, 'GET', `${base(listId)}/${uid}/subscribe`);
      expect(subscribe.status).toBe(200);
      expect(Value.Check(MessageResponse, subscribe.body)).toBe(true);
      expect((await shown(token, listId, uid)).status).toBe('subscribed');
    });

    it('is a GET: a POST to store is not a route', async () => {
      const { token, listId } = await ownerWithList();
      const answer = await server.call(token, 'POST', `${base(listId)}/store?${query({ EMAIL: 'post@example.com' })}`);
      expect(answer.status).toBe(404);
      expect(await index(token, listId)).toEqual([]);
    });
  });

  describe('index', () => {
    it('is a bare array of {uid, email, status, fields…}, 25 a page by default, [] past the end', async () => {
      const { token, listId } = await ownerWithList();
      expect(await index(token, listId)).toEqual([]);

      const uids: string[] = [];
      for (let i = 1; i <= 30; i++) {
        uids.push(await stored(token, listId, { EMAIL: `sub${i}@example.com`, FIRST_NAME: `F${i}` }));
      }
      const first = await index(token, listId);
      expect(first).toHaveLength(25);
      expect(first.map((s) => s.uid)).toEqual(uids.slice(0, 25));
      expect(first[0]).toMatchObject({ uid: uids[0], email: 'sub1@example.com', status: 'subscribed', FIRST_NAME: 'F1', LAST_NAME: null });

      const second = await index(token, listId, '?page=2');
      expect(second.map((s) => s.uid)).toEqual(uids.slice(25));

      const small = await index(token, listId, '?page=3&per_page=7');
      expect(small.map((s) => s.email)).toEqual([15, 16, 17, 18, 19, 20, 21].map((i) => `sub${i}@example.com`));

      expect(await index(token, listId, '?page=3')).toEqual([]);
      expect(await index(token, listId, '?page=99&per_page=10')).toEqual([]);
      expect(await index(token, listId, '?per_page=1000')).toHaveLength(30);
    });

    it('refuses a bad page or per_page (422)', async () => {
      const { token, listId } = await ownerWithList();
      for (const params of ['?page=0', '?per_page=0', '?per_page=1001', '?page=abc']) {
        const answer = await server.call(token, 'GET', `${base(listId)}${params}`);
        expect(answer.status, params).toBe(422);
        expect(Value.Check(ValidationErrorBody, answer.body)).toBe(true);
      }
    });

    it('lists only this list\'s subscribers', async () => {
      const { token, listId, email } = await ownerWithList();
      const other = addList(server.context.db, 'Other list', email);
      await stored(token, listId, { EMAIL: 'mine@example.com' });
      await stored(token, other, { EMAIL: 'theirs@example.com' });
      expect((await index(token, listId)).map((s) => s.email)).toEqual(['mine@example.com']);
      expect((await index(token, other)).map((s) => s.email)).toEqual(['theirs@example.com']);
    });
  });

  describe('show', () => {
    it('answers {subscriber} by uid and by e-mail', async () => {
      const { token, listId } = await ownerWithList();
      const uid = await stored(token, listId, { EMAIL: 'show@example.com', FIRST_NAME: 'Sho' });
      const byUid = await shown(token, listId, uid);
      const byEmail = await shown(token, listId, 'show@example.com');
      expect(byUid.uid).toBe(uid);
      expect(byEmail).toEqual(byUid);
      expect(await shown(token, listId, encodeURIComponent('show@example.com'))).toEqual(byUid);
    });

    it('answers 404 {message} for an unknown subscriber (uid or e-mail) and for one of another list', async () => {
      const { token, listId, email } = await ownerWithList();
      const other = addList(server.context.db, 'Other', email);
      const elsewhere = await stored(token, other, { EMAIL: 'elsewhere@example.com' });
      expectMessage(await show(token, listId, '0123456789abc'), 404);
      expectMessage(await show(token, listId, 'missing@example.com'), 404);
      expectMessage(await show(token, listId, elsewhere), 404);
      expectMessage(await show(token, listId, 'elsewhere@example.com'), 404);
    });
  });

  describe('subscribe and unsubscribe', () => {
    it('are GETs that move the status, with 409 when already so', async () => {
      const { token, listId } = await ownerWithList();
      const uid = await stored(token, listId, { EMAIL: 'toggle@example.com' });
      const act = (what: 'subscribe' | 'unsubscribe', id = uid) => server.call(token, 'GET', `${base(listId)}/${id}/${what}`);

      expectMessage(await act('subscribe'), 409, 'Already subscribed');

      const off = await act('unsubscribe');
      expect(off.status).toBe(200);
      expect(Value.Check(MessageResponse, off.body)).toBe(true);
      expect((await shown(token, listId, uid)).status).toBe('unsubscribed');

      expectMessage(await act('unsubscribe'), 409, 'Already unsubscribed');
      expect((await shown(token, listId, uid)).status).toBe('unsubscribed');

      const on = await act('subscribe', 'toggle@example.com');
      expect(on.status).toBe(200);
      expect(Value.Check(MessageResponse, on.body)).toBe(true);
      expect((await shown(token, listId, uid)).status).toBe('subscribed');

      expectMessage(await act('subscribe', 'ffffffffffff0'), 404);
      expectMessage(await act('unsubscribe', 'nobody@example.com'), 404);
    });

    it('refuses a blacklisted or spam-reported subscriber (403) and leaves the status', async () => {
      const { token, listId } = await ownerWithList();
      for (const status of ['blacklisted', 'spam-reported']) {
        const uid = await stored(token, listId, { EMAIL: `${status}@example.com`, status });
        for (const what of ['subscribe', 'unsubscribe']) {
          const answer = await server.call(token, 'GET', `${base(listId)}/${uid}/${what}`);
          expectMessage(answer, 403);
        }
        expect((await shown(token, listId, uid)).status).toBe(status);
      }
    });
  });

  describe('delete', () => {
    it('removes the subscriber via DELETE …/{id}/delete', async () => {
      const { token, listId } = await ownerWithList();
      const uid = await stored(token, listId, { EMAIL: 'bye@example.com' });
      const keep = await stored(token, listId, { EMAIL: 'stay@example.com' });

      const answer = await server.call(token, 'DELETE', `${base(listId)}/${uid}/delete`);
      expect(answer.status).toBe(200);
      expect(Value.Check(MessageResponse, answer.body)).toBe(true);
      expectMessage(await show(token, listId, uid), 404);
      expect((await index(token, listId)).map((s) => s.uid)).toEqual([keep]);

      expectMessage(await server.call(token, 'DELETE', `${base(listId)}/${uid}/delete`), 404);
      // The address can be stored again.
      expect(await stored(token, listId, { EMAIL: 'bye@example.com' })).toMatch(HEX13);
    });

    it('takes an e-mail as the id', async () => {
      const { token, listId } = await ownerWithList();
      const uid = await stored(token, listId, { EMAIL: 'mail-id@example.com' });
      const answer = await server.call(token, 'DELETE', `${base(listId)}/mail-id@example.com/delete`);
      expect(answer.status).toBe(200);
      expectMessage(await show(token, listId, uid), 404);
    });
  });

  describe('authentication and access', () => {
    it('needs a token: bearer or ?api_token=', async () => {
      const { token, listId } = await ownerWithList();
      expectMessage(await server.call(null, 'GET', base(listId)), 401);
      expectMessage(await server.call('wrong-token', 'GET', base(listId)), 401);
      expectMessage(await server.call(null, 'GET', `${base(listId)}?api_token=wrong-token`), 401);

      const viaQuery = await server.call(null, 'GET', `${base(listId)}?api_token=${encodeURIComponent(token)}`);
      expect(viaQuery.status).toBe(200);
      expect(viaQuery.body).toEqual([]);

      // store through api_token: the token is not taken for a field.
      const created = await server.call(
        null,
        'GET',
        `${base(listId)}/store?${query({ EMAIL: 'qt@example.com', FIRST_NAME: 'Q', api_token: token })}`,
      );
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const uid = created.body.subscriber_uid as string;
      const subscriber = await shown(token, listId, uid);
      expect(subscriber.FIRST_NAME).toBe('Q');
      expect(JSON.stringify(subscriber)).not.toContain(token);

      const viaQueryShow = await server.call(null, 'GET', `${base(listId)}/${uid}?api_token=${encodeURIComponent(token)}`);
      expect(viaQueryShow.status).toBe(200);
      const viaQueryDelete = await server.call(null, 'DELETE', `${base(listId)}/${uid}/delete?api_token=${encodeURIComponent(token)}`);
      expect(viaQueryDelete.status).toBe(200);
    });

    it('does not take ?api_token= outside the mailing-list routes', async () => {
      const { token } = await ownerWithList();
      const answer = await server.call(null, 'GET', `/api/v1/drive/file-entries?api_token=${encodeURIComponent(token)}`);
      expectMessage(answer, 401);
    });

    it('answers 403 for another user\'s list and 404 for an unknown list', async () => {
      const owner = await ownerWithList();
      const uid = await stored(owner.token, owner.listId, { EMAIL: 'private@example.com' });
      const other = await server.register(`intruder-${++seq}@example.com`);

      const attempts: Array<[string, string]> = [
        ['GET', base(owner.listId)],
        ['GET', `${base(owner.listId)}/store?${query({ EMAIL: 'intruder@example.com' })}`],
        ['GET', `${base(owner.listId)}/${uid}`],
        ['GET', `${base(owner.listId)}/${uid}/unsubscribe`],
        ['GET', `${base(owner.listId)}/${uid}/subscribe`],
        ['DELETE', `${base(owner.listId)}/${uid}/delete`],
      ];
      for (const [method, path] of attempts) {
        expectMessage(await server.call(other.token, method, path), 403);
      }
      // Nothing changed.
      const all = await index(owner.token, owner.listId);
      expect(all.map((s) => [s.uid, s.status])).toEqual([[uid, 'subscribed']]);

      const unknown = '0000000000000';
      expectMessage(await server.call(owner.token, 'GET', base(unknown)), 404);
      expectMessage(await store(owner.token, unknown, { EMAIL: 'x@example.com' }), 404);
      expectMessage(await show(owner.token, unknown, uid), 404);
      expectMessage(await server.call(owner.token, 'DELETE', `${base(unknown)}/${uid}/delete`), 404);
    });
  });
});
