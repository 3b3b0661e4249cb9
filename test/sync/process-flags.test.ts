/** The engine process's own settings: a collection on demand without --expose-gc on the command line. */
import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../../main/sync/engine/process-flags.js';

describe('collectGarbage', () => {
  it('collects in a process started without --expose-gc, and leaves no gc on the global object', () => {
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    let garbage: Array<{ i: number }> | null = Array.from({ length: 500_000 }, (_, i) => ({ i }));
    const held = process.memoryUsage().heapUsed;
    expect(garbage.length).toBe(500_000);
    garbage = null;
    collectGarbage();
    expect(process.memoryUsage().heapUsed).toBeLessThan(held - 10 * 1024 * 1024);
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});
