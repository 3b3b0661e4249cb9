import type { EventEmitter } from 'node:events';
import type { EventMap, EventName } from '../../contract/index.js';

/** The host's events as an EventEmitter map: each event carries its payload as its one argument. */
export type HostEvents = { [E in EventName]: [EventMap[E]] };

/** Anything the host's events can be listened to on: the host itself, or its proxy in the main process. */
export type HostEventSource = Pick<EventEmitter<HostEvents>, 'on'>;
