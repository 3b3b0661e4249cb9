/**
 * The bridge between the page and the app: the name the preload exposes the API under, the API's type, the names of
 * the IPC channels, and the Result every call answers.
 */
import type { ApiErrorKind } from '../api/errors.js';
import type { InvokeArgs, InvokeChannel, InvokeResult } from './calls.js';
import type { EventMap, EventName } from './events.js';

/** The name under which the preload exposes the API (`window.drivesync`). */
export const API_NAME = 'drivesync';

// Answers. A call never rejects across the bridge: it answers a Result, so the window gets the failure's kind and
// field messages intact (an Error crossing contextBridge keeps only its message).

/** The service's error kinds, plus the app's own. */
export type FailureKind = ApiErrorKind | 'invalid-argument' | 'not-signed-in' | 'not-synced' | 'failed';

export interface Failure {
  kind: FailureKind;
  /** One line a person can read. */
  message: string;
  /** Field → message, for a refused form. */
  fields?: Record<string, string>;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: Failure };

/** What the preload exposes as `window.drivesync`. */
export interface DrivesyncApi {
  invoke<C extends InvokeChannel>(channel: C, ...arg: InvokeArgs<C>): Promise<Result<InvokeResult<C>>>;
  /** Subscribes; the returned function removes the listener. */
  on<E extends EventName>(event: E, listener: (payload: EventMap[E]) => void): () => void;
}

/** IPC channel names on the wire. */
export const ipcInvokeChannel = (channel: InvokeChannel): string => `drivesync:invoke:${channel}`;
export const ipcEventChannel = (event: EventName): string => `drivesync:event:${event}`;

