/**
 * The command line's log: pino, to a file under the state dir. Tokens and passwords are never passed to it; the
 * redact list is the second line of defence should one ever be.
 */
import { mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import pino, { type Logger } from 'pino';

const MAX_LOG_BYTES = 10 * 1024 * 1024;

export const REDACT_PATHS = [
  'token',
  'password',
  'access_token',
  'authorization',
  '*.token',
  '*.password',
  '*.access_token',
  '*.authorization',
  '*.headers.authorization',
  'user.access_token',
  '*.user.access_token',
];

let logger: Logger | null = null;

/** The process's logger (a silent one until `openLog` is called). */
export function log(): Logger {
  return logger ?? pino({ level: 'silent' });
}

export function openLog(file: string, level = process.env.DRIVESYNC_LOG_LEVEL ?? 'info'): Logger {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // One previous file is kept: the log never grows without bound.
    if ((statSync(file, { throwIfNoEntry: false })?.size ?? 0) > MAX_LOG_BYTES) renameSync(file, `${file}.1`);
    logger = pino(
      { level, base: { pid: process.pid }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
      pino.destination({ dest: file, sync: true, mode: 0o600 }),
    );
  } catch {
    // A log that cannot be written must not stop the command.
    logger = pino({ level: 'silent' });
  }
  return logger;
}
