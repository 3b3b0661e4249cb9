/**
 * The argument check of every call that comes over a wire: against the schema the call is declared with
 * (main/contract/calls.ts), so a call cannot exist without one.
 */
import { Value } from '@sinclair/typebox/value';
import { CALLS, NoArgument, type InvokeChannel } from '../../contract/index.js';

/** The first problem with an argument, or null when it fits the call. */
export function argumentProblem(channel: InvokeChannel, arg: unknown): string | null {
  const schema = CALLS[channel].arg;
  // JSON over IPC turns a missing argument into null or undefined alike.
  const value = arg === null && schema === NoArgument ? undefined : arg;
  if (Value.Check(schema, value)) return null;
  const first = Value.Errors(schema, value).First();
  if (!first) return 'the argument does not fit the call';
  return `${first.path || 'argument'}: ${first.message}`;
}
