import bytes from 'bytes';

/** Sizes in the words every part of drivesync uses for them (1024 to a KB, as file managers count). */
export function humanBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '?';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/**
 * A rate a person writes (`2M`, `500K`, `1.5MB`, `300kb`, `65536`; per second, 1024 to a K) as bytes per second: 0
 * for none, null when it is not a rate.
 */
export function parseRate(text: string): number | null {
  const trimmed = text.trim().replace(/\/s$/i, '');
  if (!/^\d+(\.\d+)?\s*([kmgt]i?b?|b)?$/i.test(trimmed)) return null;
  // `bytes` reads `2MB` and `2mb`; the short `2M` and `2MiB` are said the same way.
  const value = bytes.parse(trimmed.replace(/([kmgt])i?b?$/i, '$1b'));
  return value === null || !Number.isFinite(value) || value < 0 ? null : Math.floor(value);
}
