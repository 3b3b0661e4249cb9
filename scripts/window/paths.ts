/** Where the window's server answers besides the page's own files (its bridge, the calls, the events). */
export const BRIDGE_PATH = '/__drivesync/bridge.js';
export const INVOKE_PATH = '/__drivesync/invoke';
export const EVENTS_PATH = '/__drivesync/events';
