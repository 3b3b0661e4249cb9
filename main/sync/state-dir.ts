/**
 * The folder inside every synced folder that belongs to drivesync: downloads in progress (`tmp/`), the lock that keeps
 * a second engine out (`lock`), and what identifies the synced folder (`folder.json`). Never synced, never scanned.
 */
export const STATE_DIR = '.drivesync';
