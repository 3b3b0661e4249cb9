/**
 * Run parameters of the planner's convergence property (test/sync/plan.property.test.ts), shared by the normal test
 * run and the soak (`npm run soak`: the same property with 50,000 runs and no timeout).
 *
 *   DRIVESYNC_SOAK_RUNS   number of runs (default 5000)
 *   DRIVESYNC_SOAK_SEED   replay: the seed fast-check printed for a failure
 *   DRIVESYNC_SOAK_PATH   replay: the path fast-check printed (jumps straight to the shrunk counterexample)
 *   DRIVESYNC_SOAK_SIZE   scale of the generated trees and changes (default 1; 2 or 3 for deeper soaks; a replay
 *                         needs the same size as the run that failed)
 *
 * On a failure the test prints the seed, the path and the replay command; rerun with both to get the same shrunk
 * counterexample at once, e.g.
 *   DRIVESYNC_SOAK_SEED=-123 DRIVESYNC_SOAK_PATH="4:1:0" npx vitest run test/sync/plan.property.test.ts
 * The counterexample's report includes the scenario as simulator calls, ready to paste into plan-rules.test.ts.
 */
import type { Parameters } from 'fast-check';

export const DEFAULT_RUNS = 5000;

function intFromEnv(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`${name} must be an integer, not ${JSON.stringify(raw)}`);
  return value;
}

export function soakRuns(): number {
  const runs = intFromEnv('DRIVESYNC_SOAK_RUNS') ?? DEFAULT_RUNS;
  if (runs < 1) throw new Error('DRIVESYNC_SOAK_RUNS must be at least 1');
  return runs;
}

/** Scale factor of the generated cases. */
export function soakSize(): number {
  const size = intFromEnv('DRIVESYNC_SOAK_SIZE') ?? 1;
  if (size < 1) throw new Error('DRIVESYNC_SOAK_SIZE must be at least 1');
  return size;
}

/** fast-check parameters: run count from the environment, and seed/path when replaying a failure. */
export function soakParameters<T>(): Parameters<T> {
  const seed = intFromEnv('DRIVESYNC_SOAK_SEED');
  const path = process.env.DRIVESYNC_SOAK_PATH;
  const params: Parameters<T> = { numRuns: soakRuns() };
  if (seed !== undefined) params.seed = seed;
  if (path) params.path = path;
  return params;
}

/** Time allowed for the property: about 0.1 s a run, and never less than the normal test timeout. */
export function soakTimeoutMs(): number {
  return Math.max(60_000, soakRuns() * 100);
}

/** The command that replays a failure straight to its shrunk counterexample. */
export function replayHint(seed: number, path: string | null): string {
  const at = path ? ` DRIVESYNC_SOAK_PATH="${path}"` : '';
  const size = soakSize() === 1 ? '' : ` DRIVESYNC_SOAK_SIZE=${soakSize()}`;
  return `planner property failed (seed ${seed}${path ? `, path ${path}` : ''}); replay with:\n  DRIVESYNC_SOAK_SEED=${seed}${at}${size} npx vitest run test/sync/plan.property.test.ts`;
}
