/**
 * The `drivesync` file itself: it starts node with the V8 flags an engine's process runs with, and runs as an
 * executable (through its first line), as it does once installed.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENGINE_ENV, ENGINE_V8_FLAGS } from '../../main/sync/engine/process-flags.js';
import { BIN } from './helpers.js';

describe('the drivesync executable', () => {
  it('names the engine process flags and allocator settings on its first line, short enough for any kernel', () => {
    const first = readFileSync(BIN, 'utf8').split('\n')[0]!;
    const env = Object.entries(ENGINE_ENV).map(([name, value]) => `${name}=${value}`);
    expect(first).toBe(`#!/usr/bin/env -S ${env.join(' ')} node ${ENGINE_V8_FLAGS.join(' ')}`);
    // Linux before 5.1 reads 127 bytes of it.
    expect(first.length).toBeLessThanOrEqual(127);
  });

  it('runs directly, through that line', () => {
    const result = spawnSync(BIN, ['--version'], { encoding: 'utf8' });
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
