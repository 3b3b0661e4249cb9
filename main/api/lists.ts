import type { Http } from './http.js';
import { BadResponseError, ConflictError } from './errors.js';
import { MessageResponse, SubscriberList, SubscriberShowResponse, SubscriberStoreResponse } from './checks.js';
import type { Subscriber, SubscriberStatus } from './schemas.js';

export interface SubscriberFields {
  EMAIL: string;
  /** List-defined fields such as FIRST_NAME; a status where the deployment accepts one. */
  [field: string]: string;
}

/** Outcome of subscribe/unsubscribe: a 409 "already so" is a result, not a failure. */
export type StatusChange = 'changed' | 'already';

const DEFAULT_PER_PAGE = 25;
const MAX_PAGES = 100_000;

const listPath = (listId: string) => `lists/${encodeURIComponent(listId)}/subscribers`;
const subscriberPath = (listId: string, id: string) => `${listPath(listId)}/${encodeURIComponent(id)}`;

/** Subscribers of a mailing list. store, subscribe and unsubscribe are GET with fields in the query string. */
export class ListsApi {
  constructor(private readonly http: Http) {}

  async page(listId: string, page: number, perPage = DEFAULT_PER_PAGE): Promise<Subscriber[]> {
    const { body } = await this.http.json({
      endpoint: 'GET /lists/{list_id}/subscribers',
      method: 'GET',
      path: listPath(listId),
      searchParams: { page, per_page: perPage },
      check: SubscriberList,
    });
    return body;
  }

  /** Every subscriber, page by page; the index has no totals, so a short or empty page ends it. */
  async *subscribers(listId: string, perPage = DEFAULT_PER_PAGE): AsyncGenerator<Subscriber> {
    let previousFirst: string | undefined;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const batch = await this.page(listId, page, perPage);
      if (page > 1 && batch[0] !== undefined && batch[0].uid === previousFirst) {
        // The server ignored `page`: stopping here would silently drop members.
        throw new BadResponseError('GET /lists/{list_id}/subscribers', `page ${page} repeats page ${page - 1}`);
      }
      previousFirst = batch[0]?.uid;
      yield* batch;
      if (batch.length < perPage) return;
    }
  }

  async show(listId: string, id: string): Promise<Subscriber> {
    const { body } = await this.http.json({
      endpoint: 'GET /lists/{list_id}/subscribers/{id}',
      method: 'GET',
      path: subscriberPath(listId, id),
      check: SubscriberShowResponse,
    });
    return body.subscriber;
  }

  /** Creates a subscriber; answers its id. */
  async store(listId: string, fields: SubscriberFields): Promise<string> {
    const { body } = await this.http.json({
      endpoint: 'GET /lists/{list_id}/subscribers/store',
      method: 'GET',
      path: `${listPath(listId)}/store`,
      searchParams: fields,
      check: SubscriberStoreResponse,
    });
    return body.subscriber_uid;
  }

  async subscribe(listId: string, id: string): Promise<StatusChange> {
    return this.change(listId, id, 'subscribe');
  }

  async unsubscribe(listId: string, id: string): Promise<StatusChange> {
    return this.change(listId, id, 'unsubscribe');
  }

  async delete(listId: string, id: string): Promise<void> {
    await this.http.json({
      endpoint: 'DELETE /lists/{list_id}/subscribers/{id}/delete',
      method: 'DELETE',
      path: `${subscriberPath(listId, id)}/delete`,
      check: MessageResponse,
    });
  }

  private async change(listId: string, id: string, action: 'subscribe' | 'unsubscribe'): Promise<StatusChange> {
    try {
      await this.http.json({
        endpoint: `GET /lists/{list_id}/subscribers/{id}/${action}`,
        method: 'GET',
        path: `${subscriberPath(listId, id)}/${action}`,
        check: MessageResponse,
      });
      return 'changed';
    } catch (error) {
      if (error instanceof ConflictError) return 'already';
      throw error;
    }
  }
}

export type { SubscriberStatus };
