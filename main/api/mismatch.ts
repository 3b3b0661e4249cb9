import type { ValueError } from '@sinclair/typebox/errors';
import type { WireCheck } from './wire-check.js';

/**
 * Where and why an answer does not fit the check it failed, in one line (`/data/0/id Expected integer`). TypeBox and
 * the schemas are loaded only now: a running engine otherwise never needs them (scripts/generate-checks.ts).
 */
export async function describeMismatch(check: WireCheck<unknown>, value: unknown): Promise<string> {
  const [{ Errors }, wire] = await Promise.all([import('@sinclair/typebox/errors'), import('./schemas.js')]);
  const first = innermost(Errors(wire[check.schema], value).First());
  return first ? `${first.path || '/'} ${first.message}`.slice(0, 300) : 'does not match the expected shape';
}

/**
 * For an answer that fits none of a union's shapes (a listing is a paginator or a bare array), the problem inside the
 * shape it came nearest to, the one whose first problem is deepest, instead of "Expected union value".
 */
function innermost(error: ValueError | undefined): ValueError | undefined {
  if (!error || error.errors.length === 0) return error;
  const depth = (e: ValueError) => e.path.split('/').length;
  let best = error;
  for (const variant of error.errors) {
    const inner = innermost(variant.First());
    if (inner && depth(inner) > depth(best)) best = inner;
  }
  return best;
}
