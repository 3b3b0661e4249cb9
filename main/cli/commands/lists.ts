/**
 * `lists [ls]`, `lists remember LIST_ID NAME`, `lists forget LIST`, and the subscribers of a mailing list the account
 * owns: `subscribers LIST | add LIST EMAIL [--field K=V] | subscribe|unsubscribe|remove LIST SUB_ID`. LIST is a list's
 * id or the name it was remembered under (the remembered lists are the window's too).
 */
import type { Command } from 'commander';
import { ApiError } from '../../api/errors.js';
import type { Subscriber } from '../../api/schemas.js';
import { countSubscribed, forgetList, listsInOrder, rememberList } from '../../state/saved-lists.js';
import { CliError, describeApiError, failure, usageError } from '../errors.js';
import { log } from '../log.js';
import { SUBSCRIBER_PAGE } from '../output.js';
import { print, printJson, printTable, safe } from '../output.js';
import { listAccount, listLabel, noteListUse, resolveListId, savedLists } from '../remembered-lists.js';
import { openSession, type Session } from '../session.js';
import { nearest } from '../suggest.js';

/** A subscriber's own properties; every other key is one of the list's fields. */
const KNOWN = new Set(['uid', 'email', 'status', 'created_at', 'updated_at']);

function parseField(value: string, previous: Array<[string, string]> = []): Array<[string, string]> {
  const at = value.indexOf('=');
  if (at <= 0) throw usageError(`--field must be KEY=VALUE (got ${value})`);
  const key = value.slice(0, at).trim();
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(key)) throw usageError(`--field: "${key}" is not a field name`);
  if (key.toUpperCase() === 'EMAIL') throw usageError('--field: the e-mail is the EMAIL argument, not a field');
  return [...previous, [key, value.slice(at + 1)]];
}

function nonEmpty(name: string, value: string): string {
  if (value.trim() === '') throw usageError(`${name} is empty`);
  return value.trim();
}

/**
 * The given fields under the list's own spelling: a field is matched without regard to case against the fields a
 * subscriber of the list carries; when the list has no subscriber to learn them from, the service's convention
 * (upper case, as FIRST_NAME) is used.
 */
async function asListFields(session: Session, listId: string, given: Array<[string, string]>): Promise<Record<string, string>> {
  if (given.length === 0) return {};
  let known: string[] = [];
  for await (const subscriber of session.client.lists.subscribers(listId, 1)) {
    known = Object.keys(subscriber).filter((k) => !KNOWN.has(k));
    break;
  }
  const fields: Record<string, string> = {};
  for (const [key, value] of given) {
    const name = known.find((k) => k.toLowerCase() === key.toLowerCase());
    if (!name && known.length > 0) throw new CliError(`the list has no field ${safe(key)} (its fields: ${known.map(safe).join(', ')})`);
    fields[name ?? key.toUpperCase()] = value;
  }
  return fields;
}

/** Says whether the list or the subscriber is missing, rather than "not found on the drive". */
async function explainNotFound(session: Session, listId: string, subscriberId: string, error: unknown, context: string): Promise<unknown> {
  if (!(error instanceof ApiError) || error.kind !== 'not-found') return failure(error, session.server, context);
  try {
    await session.client.lists.page(listId, 1, 1);
  } catch (probe) {
    if (probe instanceof ApiError && probe.kind === 'not-found') return new CliError(`${context}: there is no mailing list ${safe(listId)}`);
    if (probe instanceof ApiError) return new CliError(`${context}: ${describeApiError(probe, session.server)}`);
    return probe;
  }
  return new CliError(`${context}: list ${safe(listLabel(session, listId))} has no subscriber ${safe(subscriberId)}`);
}

/**
 * After a change to a list's members, the remembered count is looked at again: `lists` and the window show it, and
 * a count from before the change would be wrong there until the next share. Counting is a convenience too: the
 * change itself is done, so a count that cannot be had leaves the last one known.
 */
async function noteChangedList(session: Session, id: string): Promise<void> {
  try {
    noteListUse(session, id, { subscribers: await countSubscribed(session.client, id), used: true });
  } catch (error) {
    log().warn({ listId: id, err: (error as Error).message }, 'cannot count the subscribers');
    noteListUse(session, id, { used: true });
  }
}

function printSaved(session: Session, json: boolean): void {
  const lists = listsInOrder(savedLists(session));
  if (json) return printJson(lists);
  if (lists.length === 0) {
    print('no mailing lists remembered yet: drivesync lists remember LIST_ID NAME adds one');
    print('(a list you share with, add to or list the subscribers of is remembered too)');
    return;
  }
  printTable(
    ['NAME', 'ID', 'SUBSCRIBED', 'LAST USED'],
    lists.map((l) => [safe(l.name), safe(l.id), l.subscribers === null ? '?' : String(l.subscribers), l.lastUsed ?? '-']),
  );
}

export function registerListCommands(program: Command): void {
  const lists = program
    .command('lists')
    .description('your mailing lists (remembered by name) and their subscribers; alone, the remembered lists')
    .argument('[command]')
    .usage('[command] [options]')
    .allowExcessArguments()
    .action(async (given: string | undefined) => showListsAlone(lists, given));

  lists
    .command('ls')
    .description('the mailing lists you have used or remembered, most recently used first (the same as lists)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => printSaved(await openSession(), options.json === true));

  lists
    .command('remember')
    .description('remember a list of yours under a name, to use the name instead of its id')
    .argument('<listId>', 'the list id')
    .argument('<name>', 'a name for it')
    .action(rememberNamed);

  lists
    .command('forget')
    .description('forget a remembered list (the list itself stays on the drive)')
    .argument('<list>', 'the list id or its remembered name')
    .action(forgetNamed);

  lists
    .command('subscribers')
    .description('list every subscriber of a list')
    .argument('<list>', 'the list id or its remembered name')
    .option('--json', 'print JSON')
    .action(printSubscribers);

  lists
    .command('add')
    .description('add a subscriber to a list; prints the new subscriber id')
    .argument('<list>', 'the list id or its remembered name')
    .argument('<email>', 'the subscriber e-mail')
    .option('--field <key=value>', "one of the list's fields, such as first_name=Ada (any case; repeatable)", parseField)
    .action(addSubscriber);

  for (const action of ['subscribe', 'unsubscribe', 'remove'] as const) {
    lists
      .command(action)
      .description(
        action === 'remove' ? 'delete a subscriber from a list' : `${action} a subscriber (already ${action}d is not an error)`,
      )
      .argument('<list>', 'the list id or its remembered name')
      .argument('<subscriberId>', 'the subscriber id')
      .action(async (list: string, subscriberId: string) => changeSubscriber(action, list, subscriberId));
  }
}

/** `lists` with no sub-command: the remembered lists. */
async function showListsAlone(lists: Command, given: string | undefined): Promise<void> {
  // With an action of its own, commander hands a mistyped sub-command here rather than saying it is unknown.
  if (given !== undefined) {
    const meant = nearest(given, lists.commands.map((c) => c.name()));
    throw usageError(`unknown command 'lists ${given}'${meant ? `; did you mean lists ${meant}?` : ''}`);
  }
  printSaved(await openSession(), false);
}

/** `lists remember LIST_ID NAME`. */
async function rememberNamed(listId: string, name: string): Promise<void> {
  const id = nonEmpty('LIST_ID', listId);
  const label = nonEmpty('NAME', name);
  const session = await openSession();
  const account = listAccount(session);
  if (!account) throw new CliError('lists are remembered per account: sign in with drivesync login first');
  const clash = savedLists(session).find((l) => l.name.toLowerCase() === label.toLowerCase() && l.id !== id);
  if (clash) throw usageError(`the name "${label}" is already list ${clash.id}'s`);
  let subscribers: number;
  try {
    subscribers = await countSubscribed(session.client, id);
  } catch (error) {
    if (error instanceof ApiError && error.kind === 'not-found') throw new CliError(`there is no mailing list ${safe(id)}`);
    throw failure(error, session.server, `list ${id}`);
  }
  rememberList(session.paths, account, { id, name: label, subscribers });
  print(`remembered list ${safe(id)} as ${safe(label)} (${subscribers} subscribed)`);
}

/** `lists forget LIST`. */
async function forgetNamed(list: string): Promise<void> {
  const session = await openSession();
  const account = listAccount(session);
  const id = resolveListId(session, nonEmpty('LIST', list));
  if (!account || !savedLists(session).some((l) => l.id === id)) throw new CliError(`no remembered list ${safe(list)}`);
  const label = listLabel(session, id);
  forgetList(session.paths, account, id);
  print(`forgot list ${safe(label)}`);
}

/** `lists subscribers LIST [--json]`. */
async function printSubscribers(list: string, options: { json?: boolean }): Promise<void> {
  const session = await openSession();
  const id = resolveListId(session, nonEmpty('LIST', list));
  const subscribers: Subscriber[] = [];
  try {
    for await (const s of session.client.lists.subscribers(id, SUBSCRIBER_PAGE)) subscribers.push(s);
  } catch (error) {
    if (error instanceof ApiError && error.kind === 'not-found') throw new CliError(`there is no mailing list ${safe(id)}`);
    throw failure(error, session.server, `listing the subscribers of ${id} failed`);
  }
  noteListUse(session, id, { subscribers: subscribers.filter((s) => s.status === 'subscribed').length, used: true });
  if (options.json) return printJson(subscribers);
  if (subscribers.length === 0) return print(`list ${safe(listLabel(session, id))} has no subscribers`);
  const fields = [...new Set(subscribers.flatMap((s) => Object.keys(s).filter((k) => !KNOWN.has(k))))].sort();
  printTable(
    ['ID', 'STATUS', 'EMAIL', ...fields],
    subscribers.map((s) => [s.uid, s.status, safe(s.email), ...fields.map((f) => safe(String((s as Record<string, unknown>)[f] ?? '')))]),
  );
}

/** `lists add LIST EMAIL [--field K=V]...`: prints the new subscriber's id. */
async function addSubscriber(list: string, email: string, options: { field?: Array<[string, string]> }): Promise<void> {
  const given = nonEmpty('LIST', list);
  if (!/^[^@\s]+@[^@\s]+$/.test(email.trim())) throw usageError(`"${email}" is not an e-mail address`);
  const session = await openSession();
  const id = resolveListId(session, given);
  try {
    const fields = await asListFields(session, id, options.field ?? []);
    const uid = await session.client.lists.store(id, { ...fields, EMAIL: email.trim() });
    log().info({ command: 'lists add', listId: id, uid }, 'subscriber added');
    await noteChangedList(session, id);
    print(uid);
  } catch (error) {
    if (error instanceof ApiError && error.kind === 'not-found') throw new CliError(`adding ${email} failed: there is no mailing list ${safe(id)}`);
    throw failure(error, session.server, `adding ${email} to ${id} failed`);
  }
}

/** `lists subscribe|unsubscribe|remove LIST SUB_ID`. */
async function changeSubscriber(action: 'subscribe' | 'unsubscribe' | 'remove', list: string, subscriberId: string): Promise<void> {
  const given = nonEmpty('LIST', list);
  const sub = nonEmpty('SUB_ID', subscriberId);
  const session = await openSession();
  const id = resolveListId(session, given);
  try {
    if (action === 'remove') {
      await session.client.lists.delete(id, sub);
      print(`removed ${safe(sub)} from ${safe(listLabel(session, id))}`);
    } else {
      const change = await session.client.lists[action](id, sub);
      print(change === 'already' ? `${safe(sub)} was already ${action}d` : `${action}d ${safe(sub)}`);
    }
    await noteChangedList(session, id);
    log().info({ command: `lists ${action}`, listId: id, subscriberId: sub }, action);
  } catch (error) {
    throw await explainNotFound(session, id, sub, error, `${action} failed`);
  }
}
