/**
 * Run-time shapes of every call's argument: what arrives over IPC comes from a renderer and is checked before the
 * host sees it. Typed against the contract, so a call added there without a schema here does not compile.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { InvokeChannel } from '../contract.js';

const Text = (max = 4096) => Type.String({ maxLength: max });
const refFields = { root: Type.String({ minLength: 1, maxLength: 4096 }), path: Text() };
const Permissions = Type.Array(Type.Union([Type.Literal('view'), Type.Literal('edit'), Type.Literal('download')]), {
  minItems: 1,
  maxItems: 3,
  uniqueItems: true,
});
const linkFields = {
  password: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  expiresAt: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
  allowDownload: Type.Optional(Type.Boolean()),
  allowEdit: Type.Optional(Type.Boolean()),
};
const strict = { additionalProperties: false };
const Ref = Type.Object(refFields, strict);
const None = Type.Undefined();

export const ARGUMENT_SCHEMAS: { [C in InvokeChannel]: TSchema } = {
  'auth:sign-in': Type.Object(
    {
      server: Type.String({ minLength: 1, maxLength: 2048 }),
      email: Type.String({ minLength: 1, maxLength: 320 }),
      password: Type.String({ minLength: 1, maxLength: 1024 }),
      register: Type.Optional(Type.Boolean()),
    },
    strict,
  ),
  'auth:sign-out': None,
  'status:get': None,
  'progress:get': None,
  'sync:now': None,
  'sync:pause': None,
  'sync:resume': None,
  'activity:list': None,
  'conflicts:list': None,
  'errors:list': None,
  'errors:clear': None,
  'entries:browse': Ref,
  'folder:open': Type.Object({ root: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })), path: Type.Optional(Text()) }, strict),
  'share:list': Ref,
  'share:add': Type.Object(
    { ...refFields, emails: Type.Array(Type.String({ minLength: 3, maxLength: 320 }), { minItems: 1, maxItems: 500 }), permissions: Permissions },
    strict,
  ),
  'share:change': Type.Object({ ...refFields, userId: Type.Integer({ minimum: 1 }), permissions: Permissions }, strict),
  'share:remove': Type.Object({ ...refFields, userId: Type.Integer({ minimum: 1 }) }, strict),
  'share:list-members': Type.Object({ ...refFields, listId: Type.String({ minLength: 1, maxLength: 64 }), permissions: Permissions }, strict),
  'link:get': Ref,
  'link:create': Type.Object({ ...refFields, ...linkFields }, strict),
  'link:update': Type.Object({ ...refFields, ...linkFields }, strict),
  'link:delete': Ref,
  'link:copy': Ref,
  'settings:get': None,
  'settings:set': Type.Object(
    {
      folders: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { maxItems: 20 })),
      pollIntervalSeconds: Type.Optional(Type.Integer({ minimum: 5, maximum: 86_400 })),
      concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 16 })),
      bandwidthLimitKBps: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000 })),
      ignoreRules: Type.Optional(Type.String({ maxLength: 100_000 })),
      startAtLogin: Type.Optional(Type.Boolean()),
      paused: Type.Optional(Type.Boolean()),
    },
    strict,
  ),
  'deletions:answer': Type.Object({ root: Type.String({ minLength: 1, maxLength: 4096 }), confirm: Type.Boolean() }, strict),
  'recent:list': None,
  'entries:markers': Ref,
  'entries:star': Type.Object({ ...refFields, starred: Type.Boolean() }, strict),
  'file:open': Ref,
  'file:show': Ref,
  'folder:pick': None,
  'lists:list': None,
  'lists:save': Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), name: Type.String({ minLength: 1, maxLength: 100 }) }, strict),
  'lists:forget': Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }, strict),
};

/** The first problem with an argument, or null when it fits the call. */
export function argumentProblem(channel: InvokeChannel, arg: unknown): string | null {
  const schema = ARGUMENT_SCHEMAS[channel];
  // JSON over IPC turns a missing argument into null or undefined alike.
  const value = arg === null && schema === None ? undefined : arg;
  if (Value.Check(schema, value)) return null;
  const first = Value.Errors(schema, value).First();
  if (!first) return 'the argument does not fit the call';
  return `${first.path || 'argument'}: ${first.message}`;
}
