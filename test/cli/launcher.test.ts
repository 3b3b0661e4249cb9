/**
 * The `drivesync` file itself: it starts node with the V8 flags an engine's process runs with, and runs as an
 * executable (through its first line), as it does once installed.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENGINE_V8_FLAGS } from '../../main/sync/process-flags.js';
import { BIN } from './helpers.js';

describe('the drivesync executable', () => {
  it('names the engine process flags on its first line', () => {
    const first = readFileSync(BIN, 'utf8').split('\n')[0];
    expect(first).toBe(`#!/usr/bin/env -S node ${ENGINE_V8_FLAGS.join(' ')}`);
  });

  it('runs directly, through that line', () => {
    const result = spawnSync(BIN, ['--version'], { encoding: 'utf8' });
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
