import { Value } from '@sinclair/typebox/value';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FaultSpecError, parseFaultSpec } from '../../server/faults.js';
import { ErrorBody } from '../../main/api/schemas.js';
import { startTestServer, uploadForm, useTestServer, type TestServer } from '../helpers/server.js';

/** The outcome of one request: an answer, or the network error fetch rejected with. */
type Outcome = { kind: 'answer'; status: number; headers: Headers; body: unknown } | { kind: 'error'; error: unknown };

async function attempt(server: TestServer, token: string | null, method: string, path: string, body?: unknown): Promise<Outcome> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  const init: RequestInit = { method, headers };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  try {
    const response = await fetch(`${server.url}${path}`, init);
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { kind: 'answer', status: response.status, headers: response.headers, body: parsed };
  } catch (error) {
    return { kind: 'error', error };
  }
}

/** fetch's network failure: a TypeError ("fetch failed") caused by the closed socket, not an HTTP answer. */
function expectNetworkError(outcome: Outcome): void {
  expect(outcome.kind, JSON.stringify(outcome.kind === 'answer' ? { status: outcome.status, body: outcome.body } : null)).toBe('error');
  if (outcome.kind !== 'error') return;
  expect(outcome.error).toBeInstanceOf(TypeError);
  expect((outcome.error as Error).message).toBe('fetch failed');
  const cause = (outcome.error as { cause?: { code?: string } }).cause;
  expect(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_CLOSED']).toContain(cause?.code);
}

const statusOf = (outcome: Outcome) => (outcome.kind === 'answer' ? outcome.status : 'network-error');

const LIST = '/api/v1/drive/file-entries?perPage=1000';

describe('fault injection', () => {
  const server = useTestServer();
  let token: string;
  let folderSeq = 0;

  beforeAll(async () => {
    ({ token } = await server.register('faults@example.com'));
  });
  afterEach(() => server.faults.set(null));

  const names = async () => {
    const list = await server.call(token, 'GET', LIST);
    expect(list.status).toBe(200);
    return (list.body.data as Array<{ name: string }>).map((e) => e.name);
  };

  describe('rates', () => {
    it('500=1 answers every request 500 with a {message} body, without handling it', async () => {
      server.faults.set('500=1');
      const name = `never-${++folderSeq}`;
      const created = await attempt(server, token, 'POST', '/api/v1/folders', { name });
      expect(statusOf(created)).toBe(500);
      if (created.kind === 'answer') expect(Value.Check(ErrorBody, created.body)).toBe(true);
      expect(statusOf(await attempt(server, token, 'GET', LIST))).toBe(500);
      expect(statusOf(await attempt(server, null, 'POST', '/api/v1/auth/login', {}))).toBe(500);
      expect(server.faults.count).toBe(3);
      server.faults.set(null);
      expect(await names()).not.toContain(name);
    });

    it('503=1 answers every request 503 with a {message} body', async () => {
      server.faults.set('503=1');
      for (let i = 0; i < 5; i++) {
        const outcome = await attempt(server, token, 'GET', LIST);
        expect(statusOf(outcome)).toBe(503);
        if (outcome.kind === 'answer') expect(Value.Check(ErrorBody, outcome.body)).toBe(true);
      }
      expect(server.faults.count).toBe(5);
    });

    it('mixed rates inject each kind about as often as asked, and the rest is answered normally', async () => {
      server.faults.set('500=0.25,503=0.25,429=0.25,seed=11');
      const tally = new Map<number | string, number>();
      const N = 240;
      for (let i = 0; i < N; i++) {
        const status = statusOf(await attempt(server, token, 'GET', LIST));
        tally.set(status, (tally.get(status) ?? 0) + 1);
      }
      expect([...tally.keys()].sort()).toEqual([200, 429, 500, 503]);
      for (const status of [200, 429, 500, 503]) {
        // Expected 60 each; a binomial(240, 0.25) is within 60±25 with overwhelming probability.
        expect(tally.get(status), `${status}: ${JSON.stringify([...tally])}`).toBeGreaterThanOrEqual(35);
        expect(tally.get(status)).toBeLessThanOrEqual(85);
      }
      expect(server.faults.count).toBe(N - (tally.get(200) ?? 0));
    });

    it('a rate of 0 and no spec at all inject nothing', async () => {
      server.faults.set('500=0,503=0,429=0,drop=0,apply-drop=0');
      for (let i = 0; i < 20; i++) expect(statusOf(await attempt(server, token, 'GET', LIST))).toBe(200);
      server.faults.set(null);
      for (let i = 0; i < 5; i++) expect(statusOf(await attempt(server, token, 'GET', LIST))).toBe(200);
      expect(server.faults.count).toBe(0);
    });
  });

  describe('429 and Retry-After', () => {
    it('carries Retry-After from retry-after=N', async () => {
      server.faults.set('429=1,retry-after=7');
      const outcome = await attempt(server, token, 'GET', LIST);
      expect(statusOf(outcome)).toBe(429);
      if (outcome.kind !== 'answer') return;
      expect(outcome.headers.get('retry-after')).toBe('7');
      expect(Value.Check(ErrorBody, outcome.body)).toBe(true);
    });

    it('defaults Retry-After to 1 second, and takes 0', async () => {
      server.faults.set('429=1');
      const first = await attempt(server, token, 'POST', '/api/v1/folders', { name: 'throttled' });
      expect(first.kind === 'answer' && first.headers.get('retry-after')).toBe('1');
      server.faults.set('429=1,retry-after=0');
      const second = await attempt(server, token, 'GET', LIST);
      expect(second.kind === 'answer' && second.headers.get('retry-after')).toBe('0');
      server.faults.set(null);
      expect(await names()).not.toContain('throttled');
    });
  });

  describe('drop', () => {
    it('closes the connection before handling: fetch rejects and nothing happens', async () => {
      server.faults.set('drop=1');
      const name = `dropped-${++folderSeq}`;
      expectNetworkError(await attempt(server, token, 'POST', '/api/v1/folders', { name }));
      expectNetworkError(await attempt(server, token, 'POST', '/api/v1/uploads', uploadForm(`${name}.txt`, 'x'.repeat(100_000))));
      expectNetworkError(await attempt(server, token, 'GET', LIST));
      expect(server.faults.count).toBe(3);
      server.faults.set(null);
      const after = await names();
      expect(after).not.toContain(name);
      expect(after).not.toContain(`${name}.txt`);
    });
  });

  describe('apply-drop', () => {
    it('an upload takes effect (visible in a later listing) but the client gets a network error', async () => {
      server.faults.set('apply-drop=1');
      const name = `applied-${++folderSeq}.txt`;
      expectNetworkError(await attempt(server, token, 'POST', '/api/v1/uploads', uploadForm(name, 'applied content')));
      expect(server.faults.count).toBe(1);
      server.faults.set(null);
      const list = await server.call(token, 'GET', LIST);
      const entry = (list.body.data as Array<{ name: string; file_size: number; url: string }>).find((e) => e.name === name);
      expect(entry).toMatchObject({ file_size: 'applied content'.length });
      // The bytes were stored in full.
      expect((await server.call(token, 'GET', `/${entry!.url}`)).body).toBe('applied content');
    });

    it('a JSON request takes effect too: the folder exists afterwards', async () => {
      server.faults.set('apply-drop=1');
      const name = `applied-folder-${++folderSeq}`;
      expectNetworkError(await attempt(server, token, 'POST', '/api/v1/folders', { name }));
      server.faults.set(null);
      expect(await names()).toContain(name);
    });
  });

  describe('match=METHOD:/prefix', () => {
    it('limits faults to one method and path prefix', async () => {
      server.faults.set('500=1,match=POST:/api/v1/folders');
      expect(statusOf(await attempt(server, token, 'GET', LIST))).toBe(200);
      expect(statusOf(await attempt(server, token, 'POST', '/api/v1/file-entries/star', { entryIds: [999999] }))).toBe(404);
      expect(statusOf(await attempt(server, token, 'POST', '/api/v1/folders', { name: `matched-${++folderSeq}` }))).toBe(500);
      // Same path, other method: no fault (the route has no GET, so the router answers 404).
      expect(statusOf(await attempt(server, token, 'GET', '/api/v1/folders'))).toBe(404);
      expect(server.faults.count).toBe(1);
    });

    it('the method is case-insensitive and * matches every method on the prefix', async () => {
      server.faults.set('503=1,match=*:/api/v1/file-entries');
      expect(statusOf(await attempt(server, token, 'GET', LIST))).toBe(200);
      expect(statusOf(await attempt(server, token, 'POST', '/api/v1/file-entries/star', { entryIds: [1] }))).toBe(503);
      expect(statusOf(await attempt(server, token, 'DELETE', '/api/v1/file-entries', { entryIds: [1] }))).toBe(503);
      expect(statusOf(await attempt(server, token, 'GET', '/api/v1/file-entries/1'))).toBe(503);
      server.faults.set('503=1,match=get:/api/v1/drive');
      expect(statusOf(await attempt(server, token, 'GET', LIST))).toBe(503);
      expect(statusOf(await attempt(server, token, 'POST', '/api/v1/folders', { name: `unmatched-${++folderSeq}` }))).toBe(200);
    });

    it('with apply-drop, only the matched upload is dropped; the listing right after it is answered', async () => {
      server.faults.set('apply-drop=1,match=POST:/api/v1/uploads');
      const name = `matched-upload-${++folderSeq}.txt`;
      expectNetworkError(await attempt(server, token, 'POST', '/api/v1/uploads', uploadForm(name, 'abc')));
      expect(await names()).toContain(name);
    });
  });

  describe('count=N', () => {
    it('injects at most N faults, then behaves', async () => {
      server.faults.set('500=1,count=3');
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push(statusOf(await attempt(server, token, 'GET', LIST)));
      expect(statuses).toEqual([500, 500, 500, 200, 200, 200]);
      expect(server.faults.count).toBe(3);
    });

    it('counts only the requests it faulted (with match), and count=0 injects none', async () => {
      server.faults.set('drop=1,count=2,match=POST:/api/v1/folders');
      const outcomes = [];
      for (let i = 0; i < 4; i++) {
        outcomes.push(statusOf(await attempt(server, token, 'GET', LIST)));
        outcomes.push(statusOf(await attempt(server, token, 'POST', '/api/v1/folders', { name: `counted-${++folderSeq}` })));
      }
      expect(outcomes).toEqual([200, 'network-error', 200, 'network-error', 200, 200, 200, 200]);
      server.faults.set('500=1,count=0');
      expect(statusOf(await attempt(server, token, 'GET', LIST))).toBe(200);
    });

    it('set() starts the count afresh', async () => {
      server.faults.set('503=1,count=1');
      expect(statusOf(await attempt(server, token, 'GET', LIST))).toBe(503);
      expect(statusOf(await attempt(server, token, 'GET', LIST))).toBe(200);
      server.faults.set('503=1,count=1');
      expect(server.faults.count).toBe(0);
      expect(statusOf(await attempt(server, token, 'GET', LIST))).toBe(503);
    });
  });

  describe('seed', () => {
    /** Outcomes of n requests to a public route (404 when not faulted), so no account is needed. */
    const sequence = async (target: TestServer, n = 60) => {
      const out: Array<number | string> = [];
      for (let i = 0; i < n; i++) out.push(statusOf(await attempt(target, null, 'GET', '/drive/s/no-such-link')));
      return out;
    };

    it('the same seed gives the same sequence; another seed another one', async () => {
      server.faults.set('500=0.3,503=0.2,seed=42');
      const first = await sequence(server);
      server.faults.set('500=0.3,503=0.2,seed=42');
      const again = await sequence(server);
      expect(again).toEqual(first);
      // Not a constant sequence: all three outcomes occur.
      expect(new Set(first)).toEqual(new Set([404, 500, 503]));
      server.faults.set('500=0.3,503=0.2,seed=43');
      expect(await sequence(server)).not.toEqual(first);
    });

    it('the spec given in the options replays the same sequence on a fresh server', async () => {
      server.faults.set('429=0.4,500=0.1,seed=9');
      const here = await sequence(server, 40);
      expect(new Set(here)).toEqual(new Set([404, 429, 500]));
      const other = await startTestServer({ faults: '429=0.4,500=0.1,seed=9' });
      try {
        expect(await sequence(other, 40)).toEqual(here);
      } finally {
        await other.close();
      }
    });

    it('a parsed FaultSpec in the options works like its text', async () => {
      const other = await startTestServer({ faults: parseFaultSpec('503=1,match=GET:/drive/s/') });
      try {
        expect(statusOf(await attempt(other, null, 'GET', '/drive/s/abc'))).toBe(503);
        expect(statusOf(await attempt(other, null, 'POST', '/api/v1/auth/login', { email: 'a@b.c', password: 'x', token_name: 't' }))).toBe(422);
        expect(other.faults.count).toBe(1);
      } finally {
        await other.close();
      }
    });
  });

  describe('parseFaultSpec', () => {
    it('parses every key', () => {
      expect(parseFaultSpec('500=0.1, 503=0.2,429=0.05,drop=0.02,apply-drop=0.03,retry-after=2,match=post:/api/v1/uploads,count=3,seed=7')).toEqual({
        rates: { '500': 0.1, '503': 0.2, '429': 0.05, drop: 0.02, 'apply-drop': 0.03 },
        retryAfterSeconds: 2,
        method: 'POST',
        pathPrefix: '/api/v1/uploads',
        count: 3,
        seed: 7,
      });
      expect(parseFaultSpec('')).toMatchObject({ rates: {}, retryAfterSeconds: 1, method: '*', pathPrefix: '/', count: Infinity });
      expect(parseFaultSpec('500=0.5,503=0.5').rates).toEqual({ '500': 0.5, '503': 0.5 });
    });

    it.each([
      ['an unknown key', 'bogus=1'],
      ['an unknown key among good ones', '500=0.1,timeout=5'],
      ['a rate above 1', '500=1.5'],
      ['a negative rate', '503=-0.1'],
      ['a rate that is not a number', 'drop=often'],
      ['rates that sum to more than 1', '500=0.6,503=0.6'],
      ['five rates summing past 1', '500=0.25,503=0.25,429=0.25,drop=0.25,apply-drop=0.01'],
      ['a match without a method', 'match=/api/v1'],
      ['a match without a path', 'match=GET'],
      ['a match whose path is not absolute', 'match=GET:api/v1'],
      ['a match with an empty method', 'match=:/api'],
      ['an item that is not key=value', '500'],
      ['an item with no key', '=0.5'],
      ['a fractional count', 'count=1.5'],
      ['a negative count', 'count=-1'],
      ['a fractional seed', 'seed=0.5'],
      ['a retry-after beyond an hour', 'retry-after=3601'],
    ])('rejects %s (%s)', (_label, spec) => {
      expect(() => parseFaultSpec(spec)).toThrow(FaultSpecError);
    });

    it('set() and the server options refuse a bad spec', async () => {
      expect(() => server.faults.set('500=2')).toThrow(FaultSpecError);
      await expect(startTestServer({ faults: 'nonsense=1' })).rejects.toThrow(FaultSpecError);
    });
  });

  describe('--latency-ms', () => {
    it('delays every request by at least the latency', async () => {
      const LATENCY = 300;
      const slow = await startTestServer({ latencyMs: LATENCY });
      try {
        const timed = async (run: () => Promise<unknown>) => {
          const start = performance.now();
          await run();
          return performance.now() - start;
        };
        let slowToken = '';
        const registering = await timed(async () => {
          slowToken = (await slow.register('latency@example.com')).token;
        });
        expect(registering).toBeGreaterThanOrEqual(LATENCY - 20);
        for (const [method, path] of [
          ['GET', LIST],
          ['GET', '/api/v1/no-such-route'],
          ['GET', '/drive/s/unknown-link'],
        ] as const) {
          let status = 0;
          const took = await timed(async () => {
            status = (await slow.call(slowToken, method, path)).status;
          });
          expect(status).toBeGreaterThan(0);
          expect(took, `${method} ${path}`).toBeGreaterThanOrEqual(LATENCY - 20);
        }
        // Latency comes first, then faults: a faulted request is delayed too.
        slow.faults.set('503=1');
        const faulted = await timed(() => attempt(slow, slowToken, 'GET', LIST));
        expect(faulted).toBeGreaterThanOrEqual(LATENCY - 20);
      } finally {
        await slow.close();
      }
    });
  });
});
