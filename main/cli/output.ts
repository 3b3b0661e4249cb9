import { plainHttpAnswer } from '../api/errors.js';

/** Subscribers asked for per page of a list's index. */
export const SUBSCRIBER_PAGE = 100;

/** Printing: results on stdout, notes and errors on stderr (one line each, prefixed), tables and JSON. */

export function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** A note or a per-item problem on stderr, as one line. */
export function note(line: string): void {
  process.stderr.write(`drivesync: ${line.split('\n')[0]}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Left-aligned columns; the last column is not padded. */
export function printTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  print(line(header));
  for (const row of rows) print(line(row));
}

export { humanBytes } from '../api/units.js';

/** Control characters in names from the server or the disk are shown escaped, never sent to the terminal. */
export function safe(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** The engine's offline detail names the endpoint first (`GET /drive/file-entries: connection refused`). */
export function offlineReason(detail: string): string {
  if (plainHttpAnswer(detail)) return 'it speaks plain http, not https: use its http:// address';
  // The endpoint (`GET /drive/file-entries: `) is ours; the reason after it is the person's.
  return detail.replace(/^(?:GET|POST|PUT|PATCH|DELETE|HEAD) (?:\{[^}]*\}|\S+): /, '');
}

/** A server timestamp as this computer's local time, to the second (`2026-11-25 18:30:02`); `-` when unknown. */
export function localTime(iso: string | null | undefined): string {
  const when = iso ? new Date(iso) : null;
  if (!when || Number.isNaN(when.getTime())) return '-';
  const two = (n: number) => String(n).padStart(2, '0');
  return `${when.getFullYear()}-${two(when.getMonth() + 1)}-${two(when.getDate())} ${two(when.getHours())}:${two(when.getMinutes())}:${two(when.getSeconds())}`;
}
