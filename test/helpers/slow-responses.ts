/** Answers of a slow server for the client's deadline tests: bytes written one at a time, on timers a test stops. */
import type { ServerResponse } from 'node:http';

/** Writes `text` one byte per `everyMs`, until done or the client goes away; the timer is kept in `timers`. */
export function drip(res: ServerResponse, text: string, everyMs: number, timers: Set<NodeJS.Timeout>): void {
  let i = 0;
  const timer = setInterval(() => {
    if (res.destroyed || i >= text.length) {
      clearInterval(timer);
      timers.delete(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write(text[i++]!);
  }, everyMs);
  timers.add(timer);
}
