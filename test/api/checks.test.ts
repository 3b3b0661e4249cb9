// The client's checks of the service's answers are compiled ahead of time (scripts/generate-checks.ts). They must be
// current with the schemas, and say yes and no exactly where TypeBox's own check of the same schema does: on answers
// of the right shape, and on the same answers damaged at random (a field removed, retyped, added, an array entry
// added or broken).
import { readFileSync } from 'node:fs';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as checks from '../../main/api/checks.js';
import { describeMismatch } from '../../main/api/mismatch.js';
import * as Wire from '../../main/api/schemas.js';
import type { WireCheck } from '../../main/api/wire-check.js';
import { CHECKED, CHECKS_FILE, checksSource } from '../../scripts/generate-checks.js';

const user = { id: 7, email: 'a@example.com', display_name: 'A', first_name: null, created_at: '2026-01-01T00:00:00Z', access_token: 't0k' };
const entry = {
  id: 12,
  name: 'report.pdf',
  file_name: 'abc',
  file_size: 1024,
  parent_id: 3,
  mime: 'application/pdf',
  url: 'api/v1/file-entries/12',
  hash: 'MTJ8cGFkZGlu',
  type: 'pdf',
  description: null,
  deleted_at: null,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-02T00:00:00Z',
  path: '3/12',
  users: [{ id: 7, email: 'a@example.com', owns_entry: true, entry_permissions: { view: true, edit: true, download: true } }],
  parent: { id: 3, name: 'docs', type: 'folder', parent_id: null },
};
const link = { id: 1, hash: 'h4sh', password: null, user_id: 7, entry_id: 12, entry, expires_at: null, allow_edit: false, allow_download: true };
const subscriber = { uid: 'a1b2c3d4e5f60', email: 's@example.com', status: 'subscribed', FIRST_NAME: 'S', LAST_NAME: null };

/** An answer of the right shape for each checked schema, with most optional fields present. */
const GOOD: Record<(typeof CHECKED)[number], unknown[]> = {
  AnyAuthResponse: [{ status: 'success', user }, { bootstrapData: { user } }],
  EntryListResponse: [{ current_page: 1, data: [entry, { ...entry, id: 13, parent: null }], from: 1, last_page: 1, next_page: null, per_page: 50, prev_page: null, to: 2, total: 2 }, [entry]],
  EntryResponse: [{ status: 'success', fileEntry: entry }],
  FolderResponse: [{ status: 'success', folder: { ...entry, type: 'folder', file_size: 0 } }],
  EntriesResponse: [{ status: 'success', entries: [entry, entry] }],
  UploadResponse: [{ status: 'success', fileEntry: entry }],
  Status: [{ status: 'success' }],
  TagResponse: [{ status: 'success', tag: { id: 1, name: 'starred' } }],
  UsersResponse: [{ status: 'success', users: [{ ...user, entry_permissions: { view: true, edit: false, download: true }, owns_entry: false }] }],
  LinkResponse: [{ status: 'success', link, folderChildren: [entry] }, { link: null }],
  SubscriberList: [[subscriber, { ...subscriber, uid: 'ffffffffffff0' }], []],
  SubscriberShowResponse: [{ subscriber }],
  SubscriberStoreResponse: [{ status: 'success', message: 'ok', subscriber_uid: 'a1b2c3d4e5f60' }],
  MessageResponse: [{ status: 'success', message: 'done' }],
};

/** Every property name the schemas know, so damage often hits a field a check looks at. */
const KNOWN_KEYS = [...new Set(JSON.stringify(Object.values(GOOD)).match(/"([A-Za-z_]+)":/g)!.map((k) => k.slice(1, -2)))];

const anyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(undefined, null, 0, -1, 1.5, '', 'x', true, [], {}, [entry], { ...entry, id: '12' }, Number.NaN),
);

type Damage =
  | { kind: 'set'; at: number; key: string; value: unknown }
  | { kind: 'remove'; at: number; pick: number }
  | { kind: 'push'; at: number; value: unknown };

const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), key: fc.oneof(fc.constantFrom(...KNOWN_KEYS), fc.string({ maxLength: 3 })), value: anyValue }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat(), pick: fc.nat() }),
  fc.record({ kind: fc.constant('push' as const), at: fc.nat(), value: fc.oneof(anyValue, fc.constant(entry), fc.constant(subscriber)) }),
);

/** Every object and array inside a value, the value first. */
function containers(value: unknown): (Record<string, unknown> | unknown[])[] {
  if (value === null || typeof value !== 'object') return [];
  const inner = Object.values(value).flatMap(containers);
  return [value as Record<string, unknown> | unknown[], ...inner];
}

function damaged(value: unknown, harm: readonly Damage[]): unknown {
  const copy: unknown = structuredClone(value);
  for (const d of harm) {
    const all = containers(copy);
    if (all.length === 0) break;
    const target = all[d.at % all.length]!;
    if (d.kind === 'push') {
      if (Array.isArray(target)) target.push(structuredClone(d.value));
    } else if (d.kind === 'remove') {
      const keys = Object.keys(target);
      if (keys.length === 0) continue;
      if (Array.isArray(target)) target.splice(d.pick % keys.length, 1);
      else delete target[keys[d.pick % keys.length]!];
    } else if (!Array.isArray(target)) {
      target[d.key] = structuredClone(d.value);
    }
  }
  return copy;
}

const checkOf = (name: (typeof CHECKED)[number]) => (checks as Record<string, WireCheck<unknown>>)[name]!;

describe('the answer checks compiled ahead of time (main/api/checks.ts)', () => {
  it('are what `npm run checks` writes from the schemas as they are now', () => {
    const current = readFileSync(CHECKS_FILE, 'utf8') === checksSource();
    expect(current, 'main/api/checks.ts is out of date: run `npm run checks`').toBe(true);
  });

  it('exist for exactly the schemas the generator lists, each naming its schema', () => {
    expect(Object.keys(checks).sort()).toEqual([...CHECKED].sort());
    for (const name of CHECKED) expect(checkOf(name).schema).toBe(name);
  });

  it.each(CHECKED)('%s: accepts the answers of the right shape, as TypeBox does', (name) => {
    const schema = Wire[name] as TSchema;
    for (const good of GOOD[name]) {
      expect(Value.Check(schema, good), JSON.stringify(good)).toBe(true);
      expect(checkOf(name).test(good)).toBe(true);
    }
  });

  it.each(CHECKED)('%s: says yes and no where TypeBox does on damaged answers', (name) => {
    const schema = Wire[name] as TSchema;
    const seen = { yes: 0, no: 0 };
    fc.assert(
      fc.property(fc.constantFrom(...GOOD[name]), fc.array(damage, { minLength: 1, maxLength: 3 }), (good, harm) => {
        const value = damaged(good, harm);
        const expected = Value.Check(schema, value);
        seen[expected ? 'yes' : 'no']++;
        expect(checkOf(name).test(value)).toBe(expected);
      }),
      { numRuns: 400, seed: 20261123 },
    );
    // Both answers were asked for: the property did not pass by never damaging anything that mattered.
    expect(seen.yes).toBeGreaterThan(0);
    expect(seen.no).toBeGreaterThan(0);
  });

  it('say where an answer does not fit, loading TypeBox only then', async () => {
    const wrong = { current_page: 1, data: [{ ...entry, id: 'twelve' }] };
    expect(checks.EntryListResponse.test(wrong)).toBe(false);
    expect(await describeMismatch(checks.EntryListResponse, wrong)).toMatch(/^\/data\/0\/id Expected integer/);
    expect(await describeMismatch(checks.Status, 'ok')).toBe('/ Expected object');
  });
});
