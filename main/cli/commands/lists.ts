/**
 * `lists subscribers LIST_ID | add LIST_ID EMAIL [--field K=V] | subscribe|unsubscribe|remove LIST_ID SUB_ID`: the
 * subscribers of a mailing list the account owns.
 */
import type { Command } from 'commander';
import type { Subscriber } from '../../api/schemas.js';
import { failure, usageError } from '../errors.js';
import { log } from '../log.js';
import { SUBSCRIBER_PAGE } from '../output.js';
import { print, printJson, printTable, safe } from '../output.js';
import { openSession } from '../session.js';

const KNOWN = new Set(['uid', 'email', 'status', 'created_at', 'updated_at']);

function parseField(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw usageError(`--field must be KEY=VALUE (got ${value})`);
  const key = value.slice(0, at).trim();
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(key)) throw usageError(`--field: "${key}" is not a field name`);
  if (key.toUpperCase() === 'EMAIL') throw usageError('--field: the e-mail is the EMAIL argument, not a field');
  return { ...previous, [key]: value.slice(at + 1) };
}

function nonEmpty(name: string, value: string): string {
  if (value.trim() === '') throw usageError(`${name} is empty`);
  return value.trim();
}

export function registerListCommands(program: Command): void {
  const lists = program
    .command('lists')
    .description('the subscribers of your mailing lists')
    .action(() => {
      throw usageError('lists needs a command: subscribers, add, subscribe, unsubscribe or remove (see drivesync lists --help)');
    });

  lists
    .command('subscribers')
    .description('list every subscriber of a list')
    .argument('<listId>', 'the list id')
    .option('--json', 'print JSON')
    .action(async (listId: string, options: { json?: boolean }) => {
      const id = nonEmpty('LIST_ID', listId);
      const session = await openSession();
      const subscribers: Subscriber[] = [];
      try {
        for await (const s of session.client.lists.subscribers(id, SUBSCRIBER_PAGE)) subscribers.push(s);
      } catch (error) {
        throw failure(error, session.server, `listing the subscribers of ${id} failed`);
      }
      if (options.json) return printJson(subscribers);
      if (subscribers.length === 0) return print(`list ${safe(id)} has no subscribers`);
      const fields = [...new Set(subscribers.flatMap((s) => Object.keys(s).filter((k) => !KNOWN.has(k))))].sort();
      printTable(
        ['ID', 'STATUS', 'EMAIL', ...fields],
        subscribers.map((s) => [s.uid, s.status, safe(s.email), ...fields.map((f) => safe(String((s as Record<string, unknown>)[f] ?? '')))]),
      );
    });

  lists
    .command('add')
    .description('add a subscriber to a list; prints the new subscriber id')
    .argument('<listId>', 'the list id')
    .argument('<email>', 'the subscriber e-mail')
    .option('--field <key=value>', 'a list-defined field such as FIRST_NAME=Ada (repeatable)', parseField, {})
    .action(async (listId: string, email: string, options: { field: Record<string, string> }) => {
      const id = nonEmpty('LIST_ID', listId);
      if (!/^[^@\s]+@[^@\s]+$/.test(email.trim())) throw usageError(`"${email}" is not an e-mail address`);
      const session = await openSession();
      try {
        const uid = await session.client.lists.store(id, { ...options.field, EMAIL: email.trim() });
        log().info({ command: 'lists add', listId: id, uid }, 'subscriber added');
        print(uid);
      } catch (error) {
        throw failure(error, session.server, `adding ${email} to ${id} failed`);
      }
    });

  for (const action of ['subscribe', 'unsubscribe', 'remove'] as const) {
    lists
      .command(action)
      .description(
        action === 'remove' ? 'delete a subscriber from a list' : `${action} a subscriber (already ${action}d is not an error)`,
      )
      .argument('<listId>', 'the list id')
      .argument('<subscriberId>', 'the subscriber id')
      .action(async (listId: string, subscriberId: string) => {
        const id = nonEmpty('LIST_ID', listId);
        const sub = nonEmpty('SUB_ID', subscriberId);
        const session = await openSession();
        try {
          if (action === 'remove') {
            await session.client.lists.delete(id, sub);
            print(`removed ${safe(sub)} from ${safe(id)}`);
          } else {
            const change = await session.client.lists[action](id, sub);
            print(change === 'already' ? `${safe(sub)} was already ${action}d` : `${action}d ${safe(sub)}`);
          }
          log().info({ command: `lists ${action}`, listId: id, subscriberId: sub }, action);
        } catch (error) {
          throw failure(error, session.server, `${action} failed`);
        }
      });
  }
}
