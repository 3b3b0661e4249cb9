/**
 * Waiting in tests: the one way a test waits for something that happens in its own time (a pass, a poll, a file on
 * the other computer). It looks again and again, and fails with what it waited for and what it last saw.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface Waiting {
  /** How long at most, in ms (30 s by default: two busy cores; the test's own timeout is 60 s). */
  within?: number;
  /** How often it looks, in ms (50 by default). */
  every?: number;
  /** What is waited for, said when it does not come: a sentence, or a function read then (what the folder holds). */
  what?: string | (() => string | Promise<string>);
}

type Found<T> = Exclude<T, undefined | null | false>;

const found = <T>(value: T): value is Found<T> => value !== undefined && value !== null && value !== false;

/**
 * The first value `probe` gives that is not undefined, null or false (a probe that throws has not found it yet); with
 * `accept`, the first value it accepts. Fails when `within` has passed.
 */
export function eventually<T>(probe: () => T | Promise<T>, waiting?: Waiting): Promise<Found<T>>;
export function eventually<T>(probe: () => T | Promise<T>, accept: (value: T) => boolean, waiting?: Waiting): Promise<T>;
export async function eventually<T>(probe: () => T | Promise<T>, second?: Waiting | ((value: T) => boolean), third?: Waiting): Promise<T> {
  const accept = typeof second === 'function' ? second : found;
  const { within = 30_000, every = 50, what } = (typeof second === 'function' ? third : second) ?? {};
  const deadline = Date.now() + within;
  let last: string;
  for (;;) {
    try {
      const value = await probe();
      if (accept(value)) return value;
      last = `it was ${show(value)}`;
    } catch (error) {
      last = `it failed: ${(error as Error).message}`;
    }
    if (Date.now() > deadline) {
      const said = typeof what === 'function' ? await what() : what;
      throw new Error(`not within ${within} ms${said ? `: ${said}` : ''} (${last})`);
    }
    await sleep(every);
  }
}

/** Whether `check` holds within `within` ms: false, not a failure, when it does not (the caller says why). */
export const holds = (check: () => boolean | Promise<boolean>, waiting?: Waiting): Promise<boolean> =>
  eventually(check, waiting).then(
    () => true,
    () => false,
  );

function show(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 300 ? `${text.slice(0, 300)}…` : text;
  } catch {
    return String(value);
  }
}
