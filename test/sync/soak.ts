/**
 * Run parameters of the planner's convergence property (test/sync/plan.property.test.ts), shared by the normal test
 * run and the soak (`npm run soak`: the same property with 50,000 runs and no timeout).
 *
 *   DRIVESYNC_SOAK_RUNS   number of runs (default 500)
 *   DRIVESYNC_SOAK_SEED   replay: the seed fast-check printed for a failure
 *   DRIVESYNC_SOAK_PATH   replay: the path fast-check printed (jumps straight to the shrunk counterexample)
 *
 * On a failure fast-check prints `seed` and `path`; rerun with both to get the same counterexample at once, e.g.
 *   DRIVESYNC_SOAK_SEED=-123 DRIVESYNC_SOAK_PATH="4:1:0" npx vitest run test/sync/plan.property.test.ts
 */
import type { Parameters } from 'fast-check';

export const DEFAULT_RUNS = 500;

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
