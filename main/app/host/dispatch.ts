/**
 * The one entry point for a call that came over a wire (IPC, a utility process's port, a test page): checks the
 * channel and the argument, runs the call, and answers a Result — never a rejection.
 */
import { INVOKE_CHANNELS, type InvokeArg, type InvokeChannel, type InvokeResult, type Result } from '../../contract/index.js';
import { toFailure } from './failures.js';
import { argumentProblem } from './validate.js';

/** Anything that runs the contract's calls: the host itself, or a proxy to a host in another process. */
export interface ContractHandler {
  handle<C extends InvokeChannel>(channel: C, arg: InvokeArg<C>): Promise<InvokeResult<C>>;
}

const known = new Set<string>(INVOKE_CHANNELS);

export const isInvokeChannel = (channel: unknown): channel is InvokeChannel => typeof channel === 'string' && known.has(channel);

export async function dispatch(handler: ContractHandler, channel: unknown, arg: unknown): Promise<Result<unknown>> {
  if (!isInvokeChannel(channel)) return { ok: false, error: { kind: 'invalid-argument', message: `unknown call ${String(channel).slice(0, 80)}` } };
  const problem = argumentProblem(channel, arg);
  if (problem) return { ok: false, error: { kind: 'invalid-argument', message: `${channel}: ${problem}` } };
  try {
    const value = await handler.handle(channel, (arg ?? undefined) as InvokeArg<typeof channel>);
    return { ok: true, value: value === undefined ? null : value };
  } catch (error) {
    return { ok: false, error: toFailure(error) };
  }
}
