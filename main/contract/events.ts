/** Every event the host sends the window, declared once: its name and the type of its payload. */
import type { ActivityItem, CheckProgress, ConflictItem, DeletionQuestion, ErrorItem, Notice, OpenView, Progress, Settings, StatusSnapshot } from './shapes.js';

/** An event's payload type, carried by the table (nothing at run time). */
const carries = <T>() => undefined as unknown as T;

export const EVENTS = {
  /** The whole status. */
  state: carries<StatusSnapshot>(),
  progress: carries<Progress>(),
  activity: carries<ActivityItem>(),
  conflict: carries<ConflictItem>(),
  'item-error': carries<ErrorItem>(),
  'confirm-deletions': carries<DeletionQuestion>(),
  notice: carries<Notice>(),
  settings: carries<Settings>(),
  /** A check of a synced folder under way (`folders:check`): how far it has got. */
  'check-progress': carries<CheckProgress>(),
  /** The file manager's menu asked for "Share…" or "Version history…" of an item: the window shows it. */
  open: carries<OpenView>(),
};

export type EventName = keyof typeof EVENTS;
export type EventMap = { [E in EventName]: (typeof EVENTS)[E] };
export const EVENT_NAMES = Object.keys(EVENTS) as EventName[];
