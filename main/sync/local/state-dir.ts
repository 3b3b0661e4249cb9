/**
 * The folder inside every synced folder that belongs to drivesync: downloads in progress (`tmp/`), the lock that keeps
 * a second engine out (`lock`), what identifies the synced folder (`folder.json`), and items moved aside on their way
 * out (`trashing/ID/`, with a `from` file naming where each came from). Never synced, never scanned.
 */
export const STATE_DIR = '.drivesync';
/** Where items wait between being moved aside and leaving (the OS trash, or deleted when the drive holds them). */
export const TRASHING = 'trashing';
/** In each `trashing/ID/` folder: the path its item came from. */
export const FROM_FILE = 'from';
