/**
 * Each call of the contract is declared once (main/contract/calls.ts): the channel list, the argument check and the
 * host's handlers all come from that table.
 */
import { describe, expect, it } from 'vitest';
import { CALLS, ENTRY_PAGE_DEFAULT, ENTRY_PAGE_MAX, EVENT_NAMES, EVENTS, INVOKE_CHANNELS, NoArgument } from '../../main/contract/index.js';
import { argumentProblem } from '../../main/app/host/validate.js';
import { newHost } from './helpers.js';

describe('the contract table', () => {
  it('lists every call and event it declares, once', () => {
    expect(INVOKE_CHANNELS).toEqual(Object.keys(CALLS));
    expect(new Set(INVOKE_CHANNELS).size).toBe(INVOKE_CHANNELS.length);
    expect(INVOKE_CHANNELS).toContain('share:list-members');
    expect(EVENT_NAMES).toEqual(Object.keys(EVENTS));
  });

  it("checks every call's argument against its own schema", () => {
    for (const channel of INVOKE_CHANNELS) {
      const none = CALLS[channel].arg === NoArgument;
      // A call without an argument takes none (null is how a missing one crosses IPC); the others refuse a stray field.
      expect(argumentProblem(channel, none ? null : { root: '/r', path: 'p', stray: 1 }), channel).toEqual(none ? null : expect.any(String));
      expect(argumentProblem(channel, 'text'), channel).toEqual(expect.any(String));
    }
    expect(argumentProblem('entries:browse', { root: '/r', path: 'a/b' })).toBeNull();
    // A page of a folder: from and count are whole numbers, neither below 0, the count at most ENTRY_PAGE_MAX.
    expect(argumentProblem('entries:browse', { root: '/r', path: '', from: 0, count: 0 })).toBeNull();
    expect(argumentProblem('entries:browse', { root: '/r', path: '', from: 1_000_000, count: ENTRY_PAGE_MAX })).toBeNull();
    expect(argumentProblem('entries:browse', { root: '/r', path: '', count: ENTRY_PAGE_MAX + 1 })).toMatch(/count/);
    expect(argumentProblem('entries:browse', { root: '/r', path: '', from: -1 })).toMatch(/from/);
    expect(argumentProblem('entries:browse', { root: '/r', path: '', from: 2.5 })).toMatch(/from/);
    expect(argumentProblem('entries:browse', { root: '/r', path: '', count: '10' })).toMatch(/count/);
    expect(argumentProblem('entries:browse', { root: '/r', path: '', from: null })).toMatch(/from/);
    expect(ENTRY_PAGE_DEFAULT).toBeGreaterThanOrEqual(300);
    expect(ENTRY_PAGE_DEFAULT).toBeLessThanOrEqual(ENTRY_PAGE_MAX);
    expect(argumentProblem('share:add', { root: '/r', path: 'a', emails: ['x@example.com'], permissions: ['view', 'nope'] })).toMatch(/permissions/);
  });

  it('is answered by the host: one handler for each call, no more', () => {
    const { host } = newHost('contract');
    const handlers = (host as unknown as { handlers: Record<string, unknown> }).handlers;
    expect(Object.keys(handlers).sort()).toEqual([...INVOKE_CHANNELS].sort());
    for (const channel of INVOKE_CHANNELS) expect(typeof handlers[channel], channel).toBe('function');
  });
});
