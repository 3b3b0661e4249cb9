/** ISO 8601 UTC with microsecond precision and a trailing Z, as the service writes timestamps. */
export function timestamp(date?: Date): string {
  if (date) return `${date.toISOString().slice(0, 23)}000Z`;
  const micros = (performance.timeOrigin + performance.now()) * 1000;
  const ms = Math.floor(micros / 1000);
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 23)}${String(Math.floor(micros % 1000)).padStart(3, '0')}Z`;
}
