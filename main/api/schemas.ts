// Wire schemas of the service, shared by the reference server (to shape and test its answers) and the client
// (compiled ahead of time into its checks, main/api/checks.ts, by `npm run checks`). They describe what both
// documents promise and what real deployments add; fields whose presence the documents leave open are optional, and
// unknown fields are allowed.
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Timestamp = Type.String({ minLength: 1 });

export const Permission = Type.Union([Type.Literal('view'), Type.Literal('edit'), Type.Literal('download')]);
export type Permission = Static<typeof Permission>;

export const EntryPermissions = Type.Object({
  view: Type.Boolean(),
  edit: Type.Boolean(),
  download: Type.Boolean(),
});

export const EntryUser = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  entry_permissions: Type.Optional(EntryPermissions),
  owns_entry: Type.Optional(Type.Boolean()),
});
export type EntryUser = Static<typeof EntryUser>;

const fileEntryFields = {
  id: Type.Integer({ minimum: 1 }),
  name: Type.String(),
  file_name: Type.Optional(Nullable(Type.String())),
  file_size: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  parent_id: Type.Optional(Nullable(Type.Integer())),
  thumbnail: Type.Optional(Nullable(Type.String())),
  mime: Type.Optional(Nullable(Type.String())),
  url: Type.Optional(Nullable(Type.String())),
  hash: Type.Optional(Nullable(Type.String())),
  type: Type.String(),
  description: Type.Optional(Nullable(Type.String())),
  deleted_at: Type.Optional(Nullable(Timestamp)),
  created_at: Type.Optional(Nullable(Timestamp)),
  updated_at: Type.Optional(Nullable(Timestamp)),
  path: Type.Optional(Nullable(Type.String())),
  users: Type.Optional(Type.Array(EntryUser)),
};

export const ParentEntry = Type.Object(fileEntryFields);
export const FileEntry = Type.Object({ ...fileEntryFields, parent: Type.Optional(Nullable(ParentEntry)) });
export type FileEntry = Static<typeof FileEntry>;

const userFields = {
  id: Type.Integer(),
  access_token: Type.Optional(Type.String()),
  display_name: Type.Optional(Nullable(Type.String())),
  first_name: Type.Optional(Nullable(Type.String())),
  last_name: Type.Optional(Nullable(Type.String())),
  email: Type.String(),
  created_at: Type.Optional(Nullable(Timestamp)),
  updated_at: Type.Optional(Nullable(Timestamp)),
};
export const User = Type.Object(userFields);
export type User = Static<typeof User>;
/** A user an entry is shared with, as share and change-permissions answer them (deployed: with their rights). */
export const SharedUser = Type.Object({
  ...userFields,
  entry_permissions: Type.Optional(EntryPermissions),
  owns_entry: Type.Optional(Type.Boolean()),
});
export type SharedUser = Static<typeof SharedUser>;

export const Tag = Type.Object({ id: Type.Integer(), name: Type.String() });
export type Tag = Static<typeof Tag>;

export const ShareableLink = Type.Object({
  id: Type.Integer(),
  hash: Type.String({ minLength: 1 }),
  password: Type.Optional(Nullable(Type.String())),
  user_id: Type.Optional(Type.Integer()),
  entry_id: Type.Integer(),
  entry: Type.Optional(Nullable(FileEntry)),
  expires_at: Type.Optional(Nullable(Timestamp)),
  allow_edit: Type.Optional(Type.Boolean()),
  allow_download: Type.Optional(Type.Boolean()),
});
export type ShareableLink = Static<typeof ShareableLink>;

export const Status = Type.Object({ status: Type.String() });

export const AuthResponse = Type.Object({ status: Type.Optional(Type.String()), user: User });
/** Some deployments nest the registered user under bootstrapData. */
export const BootstrapAuthResponse = Type.Object({
  status: Type.Optional(Type.String()),
  bootstrapData: Type.Object({ user: User }),
});
/** What register and login answer, in either shape. */
export const AnyAuthResponse = Type.Union([AuthResponse, BootstrapAuthResponse]);

export const UploadResponse = Type.Object({ status: Type.String(), fileEntry: FileEntry });
export const EntryResponse = Type.Object({ status: Type.String(), fileEntry: FileEntry });
export const FolderResponse = Type.Object({ status: Type.String(), folder: FileEntry });
export const EntriesResponse = Type.Object({ status: Type.String(), entries: Type.Array(FileEntry) });
export const UsersResponse = Type.Object({ status: Type.String(), users: Type.Array(SharedUser) });
export const TagResponse = Type.Object({ status: Type.String(), tag: Tag });
export const LinkResponse = Type.Object({
  status: Type.Optional(Type.String()),
  link: Nullable(ShareableLink),
  folderChildren: Type.Optional(Type.Array(FileEntry)),
});

export const Paginator = Type.Object({
  current_page: Type.Integer(),
  data: Type.Array(FileEntry),
  from: Type.Optional(Nullable(Type.Integer())),
  last_page: Type.Optional(Nullable(Type.Integer())),
  next_page: Type.Optional(Nullable(Type.Integer())),
  next_page_url: Type.Optional(Nullable(Type.String())),
  per_page: Type.Optional(Type.Integer()),
  prev_page: Type.Optional(Nullable(Type.Integer())),
  to: Type.Optional(Nullable(Type.Integer())),
  total: Type.Optional(Nullable(Type.Integer())),
});
export type Paginator = Static<typeof Paginator>;
export const EntryListResponse = Type.Union([Paginator, Type.Array(FileEntry)]);

export const SubscriberStatus = Type.Union([
  Type.Literal('subscribed'),
  Type.Literal('unsubscribed'),
  Type.Literal('unconfirmed'),
  Type.Literal('blacklisted'),
  Type.Literal('spam-reported'),
]);
export type SubscriberStatus = Static<typeof SubscriberStatus>;
export const SUBSCRIBER_STATUSES: readonly SubscriberStatus[] = [
  'subscribed',
  'unsubscribed',
  'unconfirmed',
  'blacklisted',
  'spam-reported',
];

/** A subscriber carries uid, email and status plus the list-defined fields (FIRST_NAME, …) as strings. */
export const Subscriber = Type.Object(
  { uid: Type.String({ minLength: 1 }), email: Type.String(), status: Type.String() },
  { additionalProperties: Type.Union([Type.String(), Type.Null()]) },
);
export type Subscriber = Static<typeof Subscriber>;
export const SubscriberList = Type.Array(Subscriber);
export const SubscriberShowResponse = Type.Object({ subscriber: Subscriber });
export const SubscriberStoreResponse = Type.Object({
  status: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  subscriber_uid: Type.String({ minLength: 1 }),
});
export const MessageResponse = Type.Object({ status: Type.Optional(Type.String()), message: Type.String() });

export const ErrorBody = Type.Object({ message: Type.String() });
export const ValidationErrorBody = Type.Object({
  status: Type.Optional(Type.String()),
  message: Type.String(),
  errors: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())])),
});
