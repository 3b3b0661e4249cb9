/**
 * Fault injection for tests and demos of resilience. A spec is a comma-separated list of key=value:
 *   500=RATE 503=RATE 429=RATE drop=RATE apply-drop=RATE   probabilities in [0,1] of each fault per request
 *   retry-after=SECONDS   the Retry-After a 429 carries (default 1)
 *   match=METHOD:PATH_PREFIX  only requests whose method and URL match (METHOD may be *), e.g. POST:/api/v1/uploads
 *   count=N               inject at most N faults, then behave
 *   seed=N                seed of the deterministic random sequence (default 1)
 * `drop` closes the connection before the request is handled; `apply-drop` handles it, then closes the connection
 * instead of sending the answer.
 */
export type FaultKind = '500' | '503' | '429' | 'drop' | 'apply-drop';
const KINDS: readonly FaultKind[] = ['500', '503', '429', 'drop', 'apply-drop'];

export interface FaultSpec {
  rates: Partial<Record<FaultKind, number>>;
  retryAfterSeconds: number;
  method: string;
  pathPrefix: string;
  count: number;
  seed: number;
}

export class FaultSpecError extends Error {}

export function parseFaultSpec(text: string): FaultSpec {
  const spec: FaultSpec = { rates: {}, retryAfterSeconds: 1, method: '*', pathPrefix: '/', count: Infinity, seed: 1 };
  for (const item of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new FaultSpecError(`fault spec item "${item}" is not key=value`);
    const key = item.slice(0, eq);
    const value = item.slice(eq + 1);
    const number = Number(value);
    if ((KINDS as readonly string[]).includes(key)) {
      if (!(number >= 0 && number <= 1)) throw new FaultSpecError(`fault rate ${key}=${value} is not between 0 and 1`);
      spec.rates[key as FaultKind] = number;
    } else if (key === 'retry-after') {
      if (!(number >= 0 && number <= 3600)) throw new FaultSpecError(`retry-after=${value} is not 0..3600 seconds`);
      spec.retryAfterSeconds = number;
    } else if (key === 'count') {
      if (!Number.isInteger(number) || number < 0) throw new FaultSpecError(`count=${value} is not a whole number`);
      spec.count = number;
    } else if (key === 'seed') {
      if (!Number.isInteger(number)) throw new FaultSpecError(`seed=${value} is not a whole number`);
      spec.seed = number;
    } else if (key === 'match') {
      const colon = value.indexOf(':');
      if (colon <= 0 || !value.slice(colon + 1).startsWith('/')) {
        throw new FaultSpecError(`match=${value} is not METHOD:/path-prefix`);
      }
      spec.method = value.slice(0, colon).toUpperCase();
      spec.pathPrefix = value.slice(colon + 1);
    } else {
      throw new FaultSpecError(`unknown fault spec key "${key}"`);
    }
  }
  const total = KINDS.reduce((sum, k) => sum + (spec.rates[k] ?? 0), 0);
  if (total > 1 + 1e-9) throw new FaultSpecError('fault rates add up to more than 1');
  return spec;
}

/** Seeded 32-bit generator (mulberry32), so a fault sequence can be replayed. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultInjector {
  private spec: FaultSpec | null = null;
  private random: () => number = generator(1);
  private injected = 0;

  set(spec: FaultSpec | string | null): void {
    this.spec = typeof spec === 'string' ? parseFaultSpec(spec) : spec;
    this.random = generator(this.spec?.seed ?? 1);
    this.injected = 0;
  }

  get count(): number {
    return this.injected;
  }

  /** The fault to inject into this request, if any. */
  pick(method: string, url: string): FaultKind | null {
    const spec = this.spec;
    if (!spec || this.injected >= spec.count) return null;
    if (spec.method !== '*' && spec.method !== method.toUpperCase()) return null;
    if (!url.startsWith(spec.pathPrefix)) return null;
    let roll = this.random();
    for (const kind of KINDS) {
      const rate = spec.rates[kind] ?? 0;
      if (roll < rate) {
        this.injected++;
        return kind;
      }
      roll -= rate;
    }
    return null;
  }

  get retryAfterSeconds(): number {
    return this.spec?.retryAfterSeconds ?? 1;
  }
}
