/** The window's side of the contract: calls that throw a CallError on failure, and event subscriptions. */
import type { EventMap, EventName, Failure, FailureKind, InvokeArgs, InvokeChannel, InvokeResult } from '../../main/contract/index.js';

export class CallError extends Error {
  readonly kind: FailureKind;
  readonly fields: Record<string, string>;
  constructor(failure: Failure) {
    super(failure.message);
    this.kind = failure.kind;
    this.fields = failure.fields ?? {};
  }
}

export async function call<C extends InvokeChannel>(channel: C, ...arg: InvokeArgs<C>): Promise<InvokeResult<C>> {
  const result = await window.drivesync.invoke(channel, ...arg);
  if (result.ok) return result.value;
  throw new CallError(result.error);
}

export function subscribe<E extends EventName>(event: E, listener: (payload: EventMap[E]) => void): () => void {
  return window.drivesync.on(event, listener);
}

/** The message of whatever a call threw. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
export const fieldsOf = (error: unknown): Record<string, string> => (error instanceof CallError ? error.fields : {});
