import fc from 'fast-check';
import { Value } from '@sinclair/typebox/value';
import { beforeAll, describe, expect, it } from 'vitest';
import { addList } from '../../server/lists.js';
import { ErrorBody, ValidationErrorBody } from '../../main/api/schemas.js';
import { servedRoutes, uploadForm, useTestServer, type ProfileName } from '../helpers/server.js';

/**
 * Random malformed requests to every route of the server. Each route's generator builds requests that are invalid
 * by construction (a defect the server must refuse), around random noise; the fuzzing account owns a few entries
 * and a mailing list, and every request that targets them carries a defect, so nothing may ever succeed. The
 * property: a 4xx (never a 5xx: no faults are configured) with the documented error body, and 401 whenever an
 * authenticated route is called without a valid token. A last property throws fully random requests (valid or
 * not) at every route from a second account and only asserts "never a 5xx, and every 4xx is well-formed"; it runs
 * against the deployed profile too.
 */

/** Fixed run counts (28 routes × 14 + 100 ≈ 500 requests); FUZZ_SCALE=N multiplies them for a deeper local run. */
const SCALE = Math.max(1, Number(process.env.FUZZ_SCALE ?? 1) || 1);
const RUNS_PER_ROUTE = 14 * SCALE;
const CHAOS_RUNS = 100 * SCALE;

/** Statuses a refusal may have, per docs/server.md (400 is answered as 422; a bad path is a 422 or a 404). */
const MESSAGE_STATUSES = [401, 403, 404, 409, 410, 413, 415, 416];

type Auth = 'fuzzer' | 'none' | 'bad';
type FormPart = { name: string; value: string; filename?: string };

interface Req {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';
  /** Path and query, already encoded as they go on the wire (raw junk included). */
  path: string;
  /** A raw body (sent as is, with `contentType`) or the parts of a FormData. */
  body?: string | { form: FormPart[] };
  contentType?: string;
  headers?: Record<string, string>;
  auth: Auth;
}

interface Answer {
  status: number;
  body: unknown;
  contentType: string | null;
}

interface World {
  fuzzer: { id: number; token: string; email: string };
  /** The fuzzing account's entries: folder F, file X in F ("fuzz content"), folder S in F. */
  own: { folder: number; file: number; sub: number; size: number };
  victim: { id: number; folder: number; file: number; email: string };
  ownList: string;
  victimList: string;
  subscribed: { uid: string; email: string };
  unsubscribed: { uid: string; email: string };
  blacklisted: { uid: string; email: string };
}

// ---------------------------------------------------------------------------------------------------------------
// Building blocks

const enc = encodeURIComponent;
const jsonBody = (value: unknown) => ({ body: JSON.stringify(value) ?? 'null', contentType: 'application/json' });

const parsesAsJsonObject = (text: string) => {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
};

/** Authentication: mostly the fuzzer's valid token, so validation is reached; sometimes none or a bad one. */
const authArb: fc.Arbitrary<Auth> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Auth>('fuzzer') },
  { weight: 1, arbitrary: fc.constant<Auth>('none') },
  { weight: 1, arbitrary: fc.constant<Auth>('bad') },
);

const FIELD_NAMES = [
  'entryIds', 'deleteForever', 'destinationId', 'name', 'description', 'parentId', 'emails', 'permissions', 'userId',
  'password', 'expires_at', 'allow_edit', 'allow_download', 'expiresAt', 'allowEdit', 'allowDownload', 'email',
  'token_name', 'password_confirmation', 'constructor', 'toString', 'relativePath',
];

function building(world: World) {
  const ownIds = new Set([world.own.folder, world.own.file, world.own.sub]);
  /** Would a value coerce (ajv coerceTypes) to one of the fuzzer's own ids? Such values are kept out of noise. */
  const ownish = (v: unknown) =>
    (typeof v === 'number' && ownIds.has(v)) ||
    (typeof v === 'string' && v.trim() !== '' && ownIds.has(Number(v))) ||
    (v === true && ownIds.has(1));

  const junkString = fc
    .oneof(
      { weight: 4, arbitrary: fc.string({ maxLength: 24 }) },
      { weight: 2, arbitrary: fc.string({ maxLength: 12, unit: 'binary' }) },
      { weight: 1, arbitrary: fc.constantFrom('', ' ', 'null', 'true', 'NaN', '1e400', '-1', '0x1', '../..', '%00', '\u0000', 'x'.repeat(1500), '🙂'.repeat(300)) },
    )
    .filter((s) => !ownish(s));
  const junkNumber = fc
    .oneof(
      fc.integer({ min: -1000, max: 1_000_000_000 }),
      fc.constantFrom(0, -1, -0.5, 1.5, 2 ** 53, 2 ** 63, 1e21, 1e300, -1e300, Number.MIN_VALUE, world.victim.folder, world.victim.file),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    )
    .filter((n) => !ownish(n));
  const junkScalar = fc.oneof(junkNumber, junkString, fc.boolean().filter((b) => !ownish(b)), fc.constant(null));
  const keyArb = fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.string({ maxLength: 8 }));
  const { junk } = fc.letrec<{ junk: unknown }>((tie) => ({
    junk: fc.oneof(
      { depthSize: 'small', maxDepth: 3 },
      junkScalar,
      fc.array(tie('junk'), { maxLength: 4 }),
      fc.dictionary(keyArb, tie('junk'), { maxKeys: 4, noNullPrototype: true }),
    ),
  }));
  const junkObject = fc.dictionary(keyArb, junk, { maxKeys: 5, noNullPrototype: true });

  /** Bodies that no route taking a JSON object accepts (whatever their content). */
  const malformedBody: fc.Arbitrary<Pick<Req, 'body' | 'contentType'>> = fc.oneof(
    // not JSON at all
    fc
      .string({ minLength: 1, maxLength: 60 })
      .filter((s) => s.trim() !== '' && !parsesAsJsonObject(s))
      .map((s) => ({ body: s, contentType: 'application/json' })),
    // a JSON object cut short
    junkObject
      .map((o) => JSON.stringify(o))
      .filter((t) => t.length > 2)
      .chain((t) => fc.integer({ min: 1, max: t.length - 1 }).map((k) => ({ body: t.slice(0, k), contentType: 'application/json' }))),
    // JSON, but not an object
    fc.oneof(junkScalar, fc.array(junk, { maxLength: 4 })).map((v) => jsonBody(v)),
    // a body with a content type the route does not take
    fc
      .tuple(
        fc.constantFrom('application/xml', 'application/x-www-form-urlencoded', 'text/html', 'image/png', 'application/json-patch+json', 'foo/bar', 'application/octet-stream'),
        fc.string({ minLength: 1, maxLength: 40 }),
      )
      .map(([contentType, body]) => ({ body, contentType })),
    fc.string({ minLength: 1, maxLength: 40 }).map((body) => ({ body, contentType: 'text/plain' })),
    // multipart instead of JSON, or nothing at all
    fc.array(fc.tuple(fc.constantFrom(...FIELD_NAMES), fc.string({ maxLength: 10 })), { maxLength: 3 }).map((parts) => ({
      body: { form: parts.map(([name, value]) => ({ name, value })) },
    })),
    fc.constant({}),
    fc.constant({ body: '', contentType: 'application/json' }),
    // deep nesting, and a body over the 1 MiB limit
    fc.integer({ min: 100, max: 20_000 }).map((n) => ({ body: '['.repeat(n) + ']'.repeat(n), contentType: 'application/json' })),
    fc.constant({ body: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }), contentType: 'application/json' }),
    // a JSON prototype-pollution attempt, whose every known field is an (invalid) object
    fc.constant({
      body: JSON.stringify(Object.fromEntries(FIELD_NAMES.map((k) => [k, {}]))).replace(
        /^\{/,
        '{"__proto__":{"entryIds":[1],"name":"polluted","isAdmin":true},"constructor":{"prototype":{"polluted":1}},',
      ),
      contentType: 'application/json',
    }),
  );
  /** Any body at all: well-formed JSON noise or malformed. */
  const anyBody = fc.oneof({ weight: 3, arbitrary: junkObject.map(jsonBody) }, { weight: 2, arbitrary: malformedBody });

  /** A path id that is malformed, unknown or someone else's, never one of the fuzzer's own. */
  const foreignPathId = fc.oneof(
    fc.constantFrom(
      '0', '-1', '-0', '1.5', '1e3', '0x10', 'abc', '%ZZ', '%00', '%2F', '%', 'null', 'undefined', 'true', '%5B%5D', '1,2',
      '9'.repeat(17), '9'.repeat(30), '1'.repeat(600), '1e400', 'Infinity', 'NaN', '%20', '%F0%9F%99%82', '..', '.',
    ),
    fc.constantFrom(String(world.victim.folder), String(world.victim.file)),
    fc.integer({ min: 10_000_000, max: Number.MAX_SAFE_INTEGER }).map(String),
    fc.string({ minLength: 1, maxLength: 30 }).filter((s) => !ownish(s)).map(enc),
  );
  const foreignId = fc.oneof(
    fc.constantFrom(world.victim.folder, world.victim.file),
    fc.integer({ min: 10_000_000, max: 2 ** 40 }),
  );
  /** An entry-id list item that is invalid data, someone else's entry, or an unknown one. */
  const badIdItem = fc.oneof(
    fc.constantFrom<unknown>(0, -1, 1.5, 'abc', '', null, {}, [1, 2], 2 ** 53, '1'.repeat(17), '-3', ' ', 'NaN'),
    foreignId,
  );
  const ownSubset = fc.subarray([world.own.folder, world.own.file, world.own.sub], { minLength: 1 });
  /** Own ids mixed with at least one bad item, in random order. */
  const ownIdsWithBad = fc
    .tuple(ownSubset, fc.array(badIdItem, { minLength: 1, maxLength: 3 }))
    .chain(([own, bad]) => fc.shuffledSubarray([...own, ...bad], { minLength: own.length + bad.length }));
  /** Extra fields of random names and values, merged under a defect (a defect always wins the key). */
  const extras = fc.dictionary(fc.string({ maxLength: 8 }).filter((k) => !FIELD_NAMES.includes(k) && k !== '__proto__'), junk, {
    maxKeys: 2,
    noNullPrototype: true,
  });
  const withExtras = (defect: fc.Arbitrary<Record<string, unknown>>) =>
    fc.tuple(extras, defect).map(([extra, d]) => jsonBody({ ...extra, ...d }));

  /** Entry-id lists of noise, never naming the fuzzer's own entries. */
  const foreignIdsBody = fc.oneof(
    junkObject.map(jsonBody),
    fc
      .record(
        { entryIds: fc.oneof(fc.array(badIdItem, { maxLength: 4 }), junkScalar), destinationId: fc.oneof(foreignId, junkScalar), deleteForever: junkScalar },
        { requiredKeys: [] },
      )
      .map(jsonBody),
    malformedBody,
  );

  const query = (pairs: Array<[string, string]>) => pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
  /** Random, unencoded query junk (percent signs and all) appended to a query. */
  const rawQueryJunk = fc.stringMatching(/^[a-z0-9%=&+[\].;,_-]{0,24}$/);

  return {
    ownIds, junk, junkObject, junkScalar, junkString, malformedBody, anyBody, foreignPathId, foreignId, badIdItem, ownSubset,
    ownIdsWithBad, withExtras, foreignIdsBody, query, rawQueryJunk, ownish,
  };
}

type Blocks = ReturnType<typeof building>;

// ---------------------------------------------------------------------------------------------------------------
// The routes, each with a generator of requests it must refuse

interface Route {
  name: string;
  /** Routes under /auth and /drive/s need no token. */
  public?: boolean;
  gen(world: World, b: Blocks): fc.Arbitrary<Omit<Req, 'auth'>>;
}

const API = '/api/v1';

const ROUTES: Route[] = [
  {
    name: 'POST /api/v1/auth/register',
    public: true,
    gen: (w, b) => {
      const base = { email: 'someone-new@example.com', password: 'long-enough', token_name: 'fuzz' };
      const defect = fc.oneof(
        fc.constantFrom<Record<string, unknown>>(
          { email: undefined }, { email: null }, { email: {} }, { email: ['a@b.c', 'd@e.f'] }, { email: 'no-at-sign' },
          { email: 'has space@example.com' }, { email: 'a@' }, { email: '@b.c' }, { email: `${'x'.repeat(65)}@example.com` },
          { email: 12345 }, { email: w.fuzzer.email }, { email: w.fuzzer.email.toUpperCase() },
          { password: undefined }, { password: null }, { password: {} }, { password: 'short' }, { password: '' },
          { password: 12345 }, { password: 'x'.repeat(1025) }, { password: ['abcdefg', 'hijklmn'] },
          { token_name: undefined }, { token_name: null }, { token_name: '' }, { token_name: {} }, { token_name: 'x'.repeat(256) },
          { password_confirmation: 'does-not-match' }, { first_name: 'x'.repeat(256) }, { last_name: {} },
        ),
      );
      return fc.oneof(
        { weight: 3, arbitrary: fc.tuple(defect, defect).map(([d1, d2]) => jsonBody({ ...base, ...d1, ...d2 })) },
        { weight: 1, arbitrary: b.malformedBody },
      ).map((body) => ({ method: 'POST' as const, path: `${API}/auth/register`, ...body }));
    },
  },
  {
    name: 'POST /api/v1/auth/login',
    public: true,
    gen: (w, b) =>
      fc
        .oneof(
          fc
            .record({
              email: fc.oneof(fc.constant(w.fuzzer.email), b.junkScalar),
              password: b.junkScalar.filter((p) => p !== 'secret-password'),
              token_name: b.junkScalar,
            }, { requiredKeys: [] })
            .map(jsonBody),
          b.anyBody,
        )
        .map((body) => ({ method: 'POST' as const, path: `${API}/auth/login`, ...body })),
  },
  {
    name: 'GET /api/v1/drive/file-entries',
    gen: (_w, b) => {
      const defect = fc.oneof(
        fc.constantFrom('0', '-1', '1001', '1.5', 'abc', '', '1e400', 'Infinity', '9'.repeat(30)).map((v): [string, string] => ['perPage', v]),
        fc.constantFrom('0', '-5', '1000001', 'x', '2.5', 'NaN', '1e400', '-Infinity').map((v): [string, string] => ['page', v]),
        fc.constantFrom('-1', 'abc', '1.5', '1e400', '99999999999999999999').map((v): [string, string] => ['workspaceId', v]),
        fc.constantFrom('abc', '1,,2', '-1', ',', '1;2', '12345678901234567', '1, x').map((v): [string, string] => ['parentIds', v]),
        fc.constantFrom('maybe', 'yes please', '2', 'x'.repeat(11), '-1').map((v): [string, string] => ['deletedOnly', v]),
        fc.constant<[string, string]>(['query', 'q'.repeat(256)]),
        fc.constant<[string, string]>(['type', 't'.repeat(51)]),
      );
      const reserved = ['perPage', 'page', 'deletedOnly', 'starredOnly', 'recentOnly', 'sharedOnly', 'query', 'type', 'parentIds', 'workspaceId'];
      const noise = fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 10 }).filter((k) => !reserved.includes(k)), fc.string({ maxLength: 12 })), {
        maxLength: 3,
      });
      return fc
        .tuple(fc.array(defect, { minLength: 1, maxLength: 3 }), noise, b.rawQueryJunk)
        .chain(([defects, extra, raw]) =>
          fc.shuffledSubarray([...defects, ...extra], { minLength: defects.length + extra.length }).map((pairs) => ({
            method: 'GET' as const,
            path: `${API}/drive/file-entries?${b.query(pairs)}${raw ? `&${raw}` : ''}`,
          })),
        );
    },
  },
  {
    name: 'DELETE /api/v1/file-entries',
    gen: (_w, b) => {
      const badFlag = fc.constantFrom<unknown>('maybe', 'x'.repeat(11), {}, [1, 2], 2, -1, 1.5, 'truthy', '');
      const own = fc.oneof(
        b.withExtras(fc.record({ entryIds: b.ownSubset, deleteForever: badFlag }).filter((r) => r.deleteForever !== '')),
        b.withExtras(fc.record({ entryIds: b.ownIdsWithBad, deleteForever: fc.constantFrom<unknown>('true', 'false', true, undefined) })),
        b.withExtras(fc.record({ entryIds: fc.constantFrom<unknown>([], null, 'x', {}, Array.from({ length: 1001 }, (_, i) => 10_000_000 + i)) })),
      );
      return fc.oneof(own, b.foreignIdsBody).map((body) => ({ method: 'DELETE' as const, path: `${API}/file-entries`, ...body }));
    },
  },
  {
    name: 'PUT /api/v1/file-entries/:entryId',
    gen: (w, b) => {
      const badName = fc.constantFrom<unknown>('', 'a', 'ab', '   ', '\t \n', 'x'.repeat(201), 'é'.repeat(201), 'x'.repeat(1001), {}, ['abcd', 'efgh'], null);
      const badDescription = fc.constantFrom<unknown>('d'.repeat(201), {}, ['a', 'b']);
      const ownTarget = fc.constantFrom(w.own.folder, w.own.file, w.own.sub);
      const own = fc.tuple(
        ownTarget,
        fc.oneof(
          b.withExtras(fc.record({ name: badName, description: fc.oneof(b.junkString, fc.constant(null)) }, { requiredKeys: ['name'] })),
          b.withExtras(fc.record({ name: fc.constantFrom('fine name', 'another'), description: badDescription }, { requiredKeys: ['description'] })),
          b.malformedBody,
        ),
      ).map(([id, body]) => ({ path: `${API}/file-entries/${id}`, ...body }));
      const foreign = fc.tuple(b.foreignPathId, b.anyBody).map(([id, body]) => ({ path: `${API}/file-entries/${id}`, ...body }));
      return fc.oneof(own, foreign).map((r) => ({ method: 'PUT' as const, ...r }));
    },
  },
  {
    name: 'POST /api/v1/folders',
    gen: (w, b) => {
      const badName = fc.constantFrom<unknown>(undefined, '', 'a', 'ab', '    ', 'x'.repeat(201), 'x'.repeat(1001), {}, ['ab', 'cd'], null);
      const badParent = fc.constantFrom<unknown>(-1, 1.5, 'abc', {}, [1, 2], 2 ** 53, w.own.file, w.victim.folder, w.victim.file, 123_456_789, '-2');
      const defect = fc.oneof(
        fc.record({ name: badName, parentId: fc.oneof(fc.constant(undefined), fc.constant(null), fc.constant(w.own.folder), badParent) }),
        fc.record({ name: fc.oneof(fc.constantFrom('good name', 'x'.repeat(200)), b.junkString), parentId: badParent }),
        // the name of an active folder in the same parent (the root)
        fc.record({ name: fc.constant('fuzz-folder'), parentId: fc.constantFrom<unknown>(undefined, null, 0) }),
      );
      return fc
        .oneof({ weight: 3, arbitrary: b.withExtras(defect) }, { weight: 1, arbitrary: b.malformedBody })
        .map((body) => ({ method: 'POST' as const, path: `${API}/folders`, ...body }));
    },
  },
  ...(['move', 'duplicate'] as const).map(
    (action): Route => ({
      name: `POST /api/v1/file-entries/${action}`,
      gen: (w, b) => {
        const badDestination = fc.constantFrom<unknown>(w.own.file, w.victim.folder, w.victim.file, 123_456_789, -1, 1.5, 'abc', {}, [1, 2], 2 ** 53);
        const own = fc.oneof(
          b.withExtras(fc.record({ entryIds: b.ownSubset, destinationId: badDestination })),
          // a folder into itself or below itself (a refusal for move; for duplicate a valid copy, so only move)
          ...(action === 'move'
            ? [b.withExtras(fc.record({ entryIds: fc.constantFrom([w.own.folder], [w.own.folder, w.own.file]), destinationId: fc.constantFrom(w.own.folder, w.own.sub) }))]
            : []),
          b.withExtras(fc.record({ entryIds: b.ownIdsWithBad, destinationId: fc.constantFrom<unknown>(w.own.sub, undefined, null, 0) })),
        );
        return fc.oneof(own, b.foreignIdsBody).map((body) => ({ method: 'POST' as const, path: `${API}/file-entries/${action}`, ...body }));
      },
    }),
  ),
  ...(['restore', 'star', 'unstar'] as const).map(
    (action): Route => ({
      name: `POST /api/v1/file-entries/${action}`,
      gen: (_w, b) =>
        fc
          .oneof(b.withExtras(fc.record({ entryIds: b.ownIdsWithBad })), b.foreignIdsBody)
          .map((body) => ({ method: 'POST' as const, path: `${API}/file-entries/${action}`, ...body })),
    }),
  ),
  {
    name: 'POST /api/v1/uploads',
    gen: (w, b) => {
      const boundaryArb = fc.stringMatching(/^[A-Za-z0-9'()+_,.-]{1,40}$/);
      const filePart = fc.record({
        name: fc.constant('file'),
        filename: fc.oneof(fc.string({ maxLength: 20 }).map((s) => s.replace(/["\r\n\\]/g, '')), fc.constantFrom('a.txt', 'report.pdf', '')),
        value: fc.string({ maxLength: 200 }),
      });
      const noiseField = fc.record({
        name: fc.string({ minLength: 1, maxLength: 10 }).filter((n) => !['file', 'parentId', 'relativePath'].includes(n) && !/["\r\n\\]/.test(n)),
        value: fc.string({ maxLength: 30 }),
      });
      const badParent = fc.constantFrom('abc', '-1', '1.5', 'x1', 'true', String(w.own.file), String(w.victim.folder), '99999999', '1'.repeat(17), '[1]', '1 2');
      const badRelative = fc.constantFrom('..', 'a/../b.txt', '../x.txt', '/', '///', '.', './.', 'a/..', 'a/./../../etc/passwd');
      type Part = { name: string; value: string; filename?: string; contentType?: string };
      const defectParts: fc.Arbitrary<Part[]> = fc.oneof(
        fc.tuple(filePart, badParent.map((v) => ({ name: 'parentId', value: v })), fc.array(noiseField, { maxLength: 2 })).map(([f, p, n]) => [...n, p, f]),
        fc.tuple(filePart, badRelative.map((v) => ({ name: 'relativePath', value: v })), fc.array(noiseField, { maxLength: 2 })).map(([f, r, n]) => [...n, r, f]),
        // no file part: fields only, or the file under another name
        fc.array(noiseField, { maxLength: 3 }),
        fc.tuple(filePart, fc.constantFrom('upload', 'File', 'files[]')).map(([f, name]): Part[] => [{ ...f, name }]),
        // two files
        fc.tuple(filePart, filePart).map(([f1, f2]) => [f1, f2]),
        // a field declared as JSON that is not JSON
        fc.tuple(filePart, fc.constantFrom('parentId', 'relativePath', 'note'), fc.constantFrom('{bad', '[1,', 'nul', '"open')).map(([f, name, value]): Part[] => [
          { name, value, contentType: 'application/json' },
          f,
        ]),
        // a part named like an Object.prototype property (the multipart parser refuses those)
        fc.tuple(filePart, fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty'), fc.boolean()).map(([f, name, asFile]): Part[] =>
          asFile ? [{ ...f, name }, f] : [{ name, value: 'x' }, f],
        ),
      );
      const render = (boundary: string, parts: Part[]) =>
        parts
          .map((p) => {
            const disposition = p.filename !== undefined ? `form-data; name="${p.name}"; filename="${p.filename}"` : `form-data; name="${p.name}"`;
            const type = p.filename !== undefined ? 'application/octet-stream' : p.contentType;
            return `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n${p.value}\r\n`;
          })
          .join('') + `--${boundary}--\r\n`;
      const multipart = `multipart/form-data; boundary=`;
      const validParts = fc.tuple(filePart, fc.array(noiseField, { maxLength: 2 })).map(([f, n]): Part[] => [...n, f]);
      const bodies = fc.oneof(
        fc.tuple(boundaryArb, defectParts).map(([bd, parts]) => ({ body: render(bd, parts), contentType: `${multipart}${bd}` })),
        // a complete, valid form cut off before its closing delimiter
        fc.tuple(boundaryArb, validParts).chain(([bd, parts]) => {
          const text = render(bd, parts);
          const closing = text.lastIndexOf(`\r\n--${bd}--`);
          return fc.integer({ min: 0, max: closing }).map((k) => ({ body: text.slice(0, k), contentType: `${multipart}${bd}` }));
        }),
        // the boundary of the header is not the one of the body
        fc.tuple(boundaryArb, validParts).map(([bd, parts]) => ({ body: render(`${bd}X`, parts), contentType: `${multipart}${bd}Y` })),
        fc.tuple(validParts).map(([parts]) => ({ body: render('abc', parts), contentType: 'multipart/form-data' })),
        // not multipart at all
        b.anyBody,
        fc.constant({}),
        // a real FormData without the file
        fc.array(noiseField, { maxLength: 3 }).map((parts) => ({ body: { form: parts } })),
      );
      return bodies.map((body) => ({ method: 'POST' as const, path: `${API}/uploads`, ...body }));
    },
  },
  {
    name: 'POST /api/v1/file-entries/:entryId/share',
    gen: (w, b) => {
      const badEmails = fc.constantFrom<unknown>(undefined, [], ['no-at'], ['a b@c.d'], [{}], [12], 'plainstring', null, ['x'.repeat(321) + '@e.f']);
      const badPermissions = fc.constantFrom<unknown>(undefined, ['admin'], ['view', 'owner'], 'admin', [1], { view: 'maybe' }, ['view', 'edit', 'download', 'view'], null, 7);
      const someEmails = fc.oneof(fc.constant([w.victim.email]), fc.constant(['nobody@example.com']), badEmails);
      const somePermissions = fc.oneof(fc.constant(['view']), fc.constant({ edit: true }), badPermissions);
      const own = fc
        .tuple(
          fc.constantFrom(w.own.folder, w.own.file, w.own.sub),
          fc.oneof(
            b.withExtras(fc.record({ emails: badEmails, permissions: somePermissions })),
            b.withExtras(fc.record({ emails: someEmails, permissions: badPermissions })),
            b.malformedBody,
          ),
        )
        .map(([id, body]) => ({ path: `${API}/file-entries/${id}/share`, ...body }));
      const foreign = fc
        .tuple(b.foreignPathId, fc.oneof(b.anyBody, fc.record({ emails: someEmails, permissions: somePermissions }).map(jsonBody)))
        .map(([id, body]) => ({ path: `${API}/file-entries/${id}/share`, ...body }));
      return fc.oneof(own, foreign).map((r) => ({ method: 'POST' as const, ...r }));
    },
  },
  {
    name: 'PUT /api/v1/file-entries/:entryId/change-permissions',
    gen: (w, b) => {
      // Nothing of the fuzzer's is shared, so even a well-formed change on its own entry is refused (422).
      const body = fc.oneof(
        b.anyBody,
        fc.record({ userId: fc.oneof(fc.constant(w.victim.id), fc.constant(w.fuzzer.id), b.junkScalar), permissions: fc.oneof(fc.constant(['edit']), b.junk) }).map(jsonBody),
      );
      const id = fc.oneof(fc.constantFrom(String(w.own.folder), String(w.own.file)), b.foreignPathId);
      return fc.tuple(id, body).map(([entryId, bd]) => ({ method: 'PUT' as const, path: `${API}/file-entries/${entryId}/change-permissions`, ...bd }));
    },
  },
  ...(['DELETE', 'POST'] as const).map(
    (method): Route => ({
      name: `${method} /api/v1/file-entries/:entryId/unshare`,
      gen: (w, b) => {
        const badUser = fc.constantFrom<unknown>(undefined, 0, -1, 1.5, 'abc', {}, [1, 2], 2 ** 53, null, false, '');
        const own = fc
          .tuple(fc.constantFrom(w.own.folder, w.own.file), fc.oneof(b.withExtras(fc.record({ userId: badUser })), b.malformedBody))
          .map(([id, body]) => ({ path: `${API}/file-entries/${id}/unshare`, ...body }));
        const foreign = fc
          .tuple(b.foreignPathId, fc.oneof(b.anyBody, fc.record({ userId: fc.oneof(fc.constant(w.victim.id), b.junkScalar) }).map(jsonBody)))
          .map(([id, body]) => ({ path: `${API}/file-entries/${id}/unshare`, ...body }));
        return fc.oneof(own, foreign).map((r) => ({ method, ...r }));
      },
    }),
  ),
  {
    name: 'GET /api/v1/file-entries/:entryId/shareable-link',
    gen: (w, b) =>
      // The fuzzer's entries have no link (404); anything else is someone else's, unknown or malformed.
      fc
        .oneof(fc.constantFrom(String(w.own.folder), String(w.own.file)), b.foreignPathId, fc.stringMatching(/^[A-Za-z0-9_-]{1,80}$/))
        .map((id) => ({ method: 'GET' as const, path: `${API}/file-entries/${id}/shareable-link` })),
  },
  {
    name: 'POST /api/v1/file-entries/:entryId/shareable-link',
    gen: (w, b) => {
      const defect = fc.oneof(
        fc.record({ expires_at: fc.constantFrom<unknown>('tomorrow', 'not-a-date', '2024-13-45T00:00:00Z', '2024-02-30x', 'x'.repeat(65), {}, [1, 2], 12345) }),
        fc.record({ allow_edit: fc.constantFrom<unknown>('maybe', 'yes', {}, [1, 2], 2, -1) }),
        fc.record({ allow_download: fc.constantFrom<unknown>('maybe', 'nope', {}, 7) }),
        fc.record({ allowEdit: fc.constantFrom<unknown>('maybe', {}, 3) }),
        fc.record({ password: fc.constantFrom<unknown>({}, [1, 2], 'p'.repeat(1025)) }),
      );
      const own = fc
        .tuple(fc.constantFrom(w.own.folder, w.own.file), fc.oneof(b.withExtras(defect), fc.tuple(b.junkScalar, b.junk).map(([x, y]) => jsonBody([x, y]))))
        .map(([id, body]) => ({ path: `${API}/file-entries/${id}/shareable-link`, ...body }));
      const foreign = fc
        .tuple(b.foreignPathId, b.anyBody)
        .map(([id, body]) => ({ path: `${API}/file-entries/${id}/shareable-link`, ...body }));
      return fc.oneof(own, foreign).map((r) => ({ method: 'POST' as const, ...r }));
    },
  },
  ...(['PUT', 'DELETE'] as const).map(
    (method): Route => ({
      name: `${method} /api/v1/file_entries/:entryId/shareable-link`,
      gen: (w, b) =>
        // no link exists on the fuzzer's entries (404), whatever the body
        fc
          .tuple(fc.oneof(fc.constantFrom(String(w.own.folder), String(w.own.file)), b.foreignPathId), method === 'PUT' ? b.anyBody : fc.oneof(fc.constant({}), b.anyBody))
          .map(([id, body]) => ({ method, path: `${API}/file_entries/${id}/shareable-link`, ...body })),
    }),
  ),
  {
    name: 'GET /api/v1/file-entries/:entryId (content)',
    gen: (w, b) => {
      const unsatisfiable = fc
        .tuple(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }), fc.boolean())
        .map(([start, extra, open]) => `bytes=${w.own.size + start}-${open ? '' : w.own.size + start + extra}`);
      return fc.oneof(
        fc.tuple(b.foreignPathId, fc.option(fc.constantFrom('bytes=0-1', 'bytes=abc', 'items=1-2'))).map(([id, range]) => ({
          method: 'GET' as const,
          path: `${API}/file-entries/${id}`,
          ...(range ? { headers: { range } } : {}),
        })),
        // own folder: no content
        fc.constant({ method: 'GET' as const, path: `${API}/file-entries/${w.own.folder}` }),
        // own file, a range past its end: 416
        unsatisfiable.map((range) => ({ method: 'GET' as const, path: `${API}/file-entries/${w.own.file}`, headers: { range } })),
      );
    },
  },
  {
    name: 'GET /drive/s/:hash',
    public: true,
    gen: (_w, b) =>
      fc
        .tuple(
          fc.oneof(
            fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/),
            fc.string({ minLength: 1, maxLength: 40 }).map(enc),
            fc.constantFrom('%ZZ', 'x'.repeat(65), '%00', '..%2F..', 'a'.repeat(600)),
          ),
          fc.option(fc.oneof(fc.string({ maxLength: 20 }), fc.constant('p'.repeat(1025)))),
          b.rawQueryJunk,
        )
        .map(([hash, password, raw]) => ({
          method: 'GET' as const,
          path: `/drive/s/${hash}?${password !== null ? `password=${enc(password)}&` : ''}${raw}`,
        })),
  },
  {
    name: 'GET /api/v1/lists/:list_id/subscribers',
    gen: (w, b) => {
      const defect = fc.oneof(
        fc.constantFrom('0', '-1', 'abc', '1.5', '1000001', '1e400', 'Infinity', '').map((v): [string, string] => ['page', v]),
        fc.constantFrom('0', '-1', 'abc', '1.5', '1001', '1e400', '').map((v): [string, string] => ['per_page', v]),
      );
      const own = fc
        .tuple(fc.array(defect, { minLength: 1, maxLength: 2 }), b.rawQueryJunk)
        .map(([pairs, raw]) => `${API}/lists/${w.ownList}/subscribers?${b.query(pairs)}${raw ? `&${raw}` : ''}`);
      const other = fc
        .tuple(fc.oneof(fc.constant(w.victimList), fc.string({ minLength: 1, maxLength: 80 }).filter((s) => s !== w.ownList).map(enc)), b.rawQueryJunk)
        .map(([id, raw]) => `${API}/lists/${id}/subscribers?${raw}`);
      return fc.oneof(own, other).map((path) => ({ method: 'GET' as const, path }));
    },
  },
  {
    name: 'GET /api/v1/lists/:list_id/subscribers/store',
    gen: (w, b) => {
      const defect = fc.oneof(
        fc.constantFrom<Record<string, string | string[] | undefined>>(
          { EMAIL: undefined }, { EMAIL: '' }, { EMAIL: 'no-at' }, { EMAIL: 'a@b' }, { EMAIL: 'a b@c.de' }, { EMAIL: `${'x'.repeat(320)}@e.fg` },
          { EMAIL: w.subscribed.email }, { EMAIL: w.subscribed.email.toUpperCase() }, { EMAIL: ['one@x.example.com', 'two@x.example.com'] },
          { status: 'active' }, { status: 'SUBSCRIBED' }, { status: '' }, { status: 'x'.repeat(33) }, { FIRST_NAME: 'x'.repeat(256) },
          { first_name: 'lower' }, { EMAIL2: 'x' },
        ),
        fc.stringMatching(/^[A-Z][A-Z0-9_]{0,10}$/)
          .filter((k) => !['EMAIL', 'FIRST_NAME', 'LAST_NAME'].includes(k))
          .map((k) => ({ [k]: 'value' })),
      );
      const toQuery = (fields: Record<string, string | string[] | undefined>) =>
        b.query(Object.entries(fields).flatMap(([k, v]): Array<[string, string]> => (v === undefined ? [] : Array.isArray(v) ? v.map((x): [string, string] => [k, x]) : [[k, v]])));
      const own = fc
        .tuple(fc.string({ maxLength: 20 }), fc.array(defect, { minLength: 1, maxLength: 2 }))
        .map(([first, defects]) => `${API}/lists/${w.ownList}/subscribers/store?${toQuery(Object.assign({ EMAIL: 'brand-new@example.com', FIRST_NAME: first }, ...defects))}`);
      const other = fc
        .tuple(fc.oneof(fc.constant(w.victimList), fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s !== w.ownList && s !== 'store').map(enc)))
        .map(([id]) => `${API}/lists/${id}/subscribers/store?EMAIL=brand-new%40example.com`);
      return fc.oneof(own, other).map((path) => ({ method: 'GET' as const, path }));
    },
  },
  ...(
    [
      ['show', 'GET', ''],
      ['subscribe', 'GET', '/subscribe'],
      ['unsubscribe', 'GET', '/unsubscribe'],
      ['delete', 'DELETE', '/delete'],
    ] as const
  ).map(
    ([action, method, suffix]): Route => ({
      name: `${method} /api/v1/lists/:list_id/subscribers/:id${suffix} (${action})`,
      gen: (w, b) => {
        const known = [w.subscribed, w.unsubscribed, w.blacklisted].flatMap((s) => [s.uid, s.email.toLowerCase()]);
        const unknownId = fc
          .oneof(fc.string({ minLength: 1, maxLength: 30 }), fc.emailAddress(), fc.stringMatching(/^[0-9a-f]{13}$/), fc.constant('x'.repeat(321)))
          .filter((s) => !known.includes(s.toLowerCase()) && s !== 'store');
        // Ids on the own list that must be refused as they stand: unknown (404), or in a state the action refuses.
        const refusable =
          action === 'subscribe'
            ? fc.oneof(unknownId, fc.constantFrom(w.subscribed.uid, w.subscribed.email, w.blacklisted.uid))
            : action === 'unsubscribe'
              ? fc.oneof(unknownId, fc.constantFrom(w.unsubscribed.uid, w.unsubscribed.email, w.blacklisted.email))
              : unknownId;
        const own = refusable.map((id) => `${API}/lists/${w.ownList}/subscribers/${enc(id)}${suffix}`);
        const other = fc
          .tuple(
            fc.oneof(fc.constant(w.victimList), fc.string({ minLength: 1, maxLength: 70 }).filter((s) => s !== w.ownList).map(enc)),
            fc.oneof(fc.constantFrom(w.subscribed.uid, w.unsubscribed.email), unknownId),
          )
          .map(([list, id]) => `${API}/lists/${list}/subscribers/${enc(id)}${suffix}`);
        return fc.oneof(own, other).map((path) => ({ method, path }));
      },
    }),
  ),
];

// ---------------------------------------------------------------------------------------------------------------

describe('malformed requests to every route (documents profile)', () => fuzz('documents'));
describe('random requests to the deployed profile', () => fuzz('deployed'));

function fuzz(profile: ProfileName): void {
  const server = useTestServer({ profile });
  let world: World;
  let blocks: Blocks;

  const db = () => server.context.db;
  const snapshot = () =>
    Object.fromEntries(
      ['users', 'tokens', 'entries', 'shares', 'stars', 'links', 'lists', 'subscribers'].map((table) => [
        table,
        db().prepare(`SELECT * FROM ${table} ORDER BY rowid`).all(),
      ]),
    );
  let before: ReturnType<typeof snapshot>;

  async function send(req: Req, token: string): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    if (req.auth === 'fuzzer') headers.authorization = `Bearer ${token}`;
    else if (req.auth === 'bad') headers.authorization = 'Bearer definitely-not-a-token';
    let body: string | FormData | undefined;
    if (typeof req.body === 'string') {
      body = req.body;
      if (req.contentType !== undefined) headers['content-type'] = req.contentType;
    } else if (req.body) {
      body = new FormData();
      for (const part of req.body.form) {
        if (part.filename !== undefined) body.append(part.name, new Blob([part.value]), part.filename);
        else body.append(part.name, part.value);
      }
    }
    const response = await fetch(`${server.url}${req.path}`, { method: req.method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // keep the text
    }
    return { status: response.status, body: parsed, contentType: response.headers.get('content-type') };
  }

  /** The documented error body for a refusal. */
  function expectErrorBody(answer: Answer, label: string): void {
    if (answer.status === 422) {
      expect(Value.Check(ValidationErrorBody, answer.body), `${label}: 422 body ${JSON.stringify(answer.body)}`).toBe(true);
    } else {
      expect(MESSAGE_STATUSES, `${label}: status ${answer.status} ${JSON.stringify(answer.body)}`).toContain(answer.status);
      expect(Value.Check(ErrorBody, answer.body), `${label}: ${answer.status} body ${JSON.stringify(answer.body)}`).toBe(true);
    }
  }

  beforeAll(async () => {
    // The victim's entries come first, so that id 1 (what `true` coerces to) is never the fuzzer's.
    const victim = await server.register('victim@example.com');
    const vFolder = (await server.call(victim.token, 'POST', `${API}/folders`, { name: 'victim-folder' })).body.folder.id as number;
    const vFile = (await server.call(victim.token, 'POST', `${API}/uploads`, uploadForm('v.txt', 'victim', { parentId: vFolder }))).body.fileEntry.id as number;
    const fuzzer = await server.register('fuzzer@example.com');
    const folder = (await server.call(fuzzer.token, 'POST', `${API}/folders`, { name: 'fuzz-folder' })).body.folder.id as number;
    const content = 'fuzz content';
    const file = (await server.call(fuzzer.token, 'POST', `${API}/uploads`, uploadForm('f.txt', content, { parentId: folder }))).body.fileEntry.id as number;
    const sub = (await server.call(fuzzer.token, 'POST', `${API}/folders`, { name: 'fuzz-sub', parentId: folder })).body.folder.id as number;
    expect([folder, file, sub]).not.toContain(1);
    const ownList = addList(db(), 'fuzz list', 'fuzzer@example.com');
    const victimList = addList(db(), 'victim list', 'victim@example.com');
    const store = async (email: string, status?: string) => {
      const answer = await server.call(
        fuzzer.token,
        'GET',
        `${API}/lists/${ownList}/subscribers/store?EMAIL=${enc(email)}${status ? `&status=${status}` : ''}`,
      );
      expect(answer.status).toBe(200);
      return { uid: answer.body.subscriber_uid as string, email };
    };
    world = {
      fuzzer: { ...fuzzer, email: 'fuzzer@example.com' },
      own: { folder, file, sub, size: content.length },
      victim: { id: victim.id, folder: vFolder, file: vFile, email: 'victim@example.com' },
      ownList,
      victimList,
      subscribed: await store('s1@list.example.com'),
      unsubscribed: await store('s2@list.example.com', 'unsubscribed'),
      blacklisted: await store('s3@list.example.com', 'blacklisted'),
    };
    blocks = building(world);
    before = snapshot();
  });

  // Every request of these generators must be refused as the documents are read; the deployed profile answers some
  // of them (a missing link is 200 {link: null}, a delete without the flag goes ahead), so they are the documents'.
  if (profile === 'documents') {
    it('has a generator for every route the server has, and for nothing else', () => {
      const served = servedRoutes(server);
      expect(served.size).toBeGreaterThanOrEqual(28);
      const generated = new Set(ROUTES.map((r) => r.name.replace(/ \(.*\)$/, '')));
      expect([...generated].sort()).toEqual([...served].sort());
    });

    it.each(ROUTES.map((r) => [r.name, r] as const))('%s: refuses malformed requests with a 4xx and the right body', async (_name, route) => {
      const arb = fc.tuple(route.gen(world, blocks), authArb).map(([req, auth]): Req => ({ ...req, auth }));
      await fc.assert(
        fc.asyncProperty(arb, async (req) => {
          const answer = await send(req, world.fuzzer.token);
          const label = `${req.method} ${req.path.slice(0, 200)}`;
          expect(answer.status, `${label}: ${JSON.stringify(answer.body)?.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
          expect(answer.status, `${label}: ${JSON.stringify(answer.body)?.slice(0, 300)}`).toBeLessThan(500);
          if (!route.public && req.auth !== 'fuzzer') expect(answer.status, label).toBe(401);
          expectErrorBody(answer, label);
        }),
        { numRuns: RUNS_PER_ROUTE },
      );
    });

    it('the malformed requests changed nothing', () => {
      expect(snapshot()).toEqual(before);
      // nor polluted any prototype of the (in-process) server
      expect(Object.prototype).not.toHaveProperty('isAdmin');
      expect(Object.prototype).not.toHaveProperty('polluted');
      // and the stored bytes are intact
      return server.call(world.fuzzer.token, 'GET', `${API}/file-entries/${world.own.file}`).then((answer) => {
        expect(answer.body).toBe('fuzz content');
      });
    });
  }

  it('a range past the end of a file is a 416 {message}, through the API and through a public link', async () => {
    const owner = await server.register('ranges@example.com');
    const file = (await server.call(owner.token, 'POST', `${API}/uploads`, uploadForm('r.txt', '0123456789'))).body.fileEntry;
    const hash = (await server.call(owner.token, 'POST', `${API}/file-entries/${file.id}/shareable-link`, {})).body.link.hash as string;
    for (const path of [`/${file.url}`, `/drive/s/${hash}`]) {
      for (const range of ['bytes=10-', 'bytes=100-200', 'bytes=50-60,70-80']) {
        const answer = await server.call(owner.token, 'GET', path, undefined, { range });
        expect(answer.status, `${path} ${range}: ${JSON.stringify(answer.body)}`).toBe(416);
        expect(Value.Check(ErrorBody, answer.body)).toBe(true);
        expect(answer.headers.get('content-range')).toBe('bytes */10');
      }
      // and a satisfiable one still works
      const part = await server.call(owner.token, 'GET', path, undefined, { range: 'bytes=8-' });
      expect(part.status).toBe(206);
      expect(part.body).toBe(89);
    }
  });

  it('an over-long multipart field (relativePath > 64 KiB) is refused, not silently truncated', async () => {
    const owner = await server.register('long-field@example.com');
    const name = `${'d'.repeat(70_000)}.txt`;
    const answer = await server.call(owner.token, 'POST', `${API}/uploads`, uploadForm('short.txt', 'x', { relativePath: name }));
    expect([413, 422], `${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`).toContain(answer.status);
    expectErrorBody({ status: answer.status, body: answer.body, contentType: null }, 'long relativePath');
    const list = await server.call(owner.token, 'GET', `${API}/drive/file-entries`);
    expect(list.body.total).toBe(0);
  });

  it('fully random requests to any route never get a 5xx, and every refusal is well-formed', async () => {
    const chaos = await server.register('chaos@example.com');
    const b = blocks;
    const methods = fc.constantFrom<Req['method']>('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS');
    const segment = fc.oneof(
      b.foreignPathId,
      fc.constantFrom(String(world.own.folder), String(world.victim.file), world.ownList, world.victimList, world.subscribed.uid),
      fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/),
    );
    const templates = ROUTES.map((r) => r.name.replace(/ \(.*\)$/, '').split(' ')[1]!);
    const pathArb = fc
      .tuple(fc.constantFrom(...templates), segment, segment, fc.option(b.rawQueryJunk))
      .map(([template, s1, s2, raw]) => template.replace(/:(entryId|list_id|hash)/, s1).replace(':id', s2) + (raw ? `?${raw}` : ''));
    const bodyArb = fc.oneof(b.anyBody, fc.constant({}), b.junk.map(jsonBody));
    const arb = fc
      .tuple(methods, pathArb, bodyArb, fc.constantFrom<Auth>('fuzzer', 'fuzzer', 'fuzzer', 'none', 'bad'))
      .map(([method, path, body, auth]): Req => ({ method, path, auth, ...(method === 'GET' || method === 'HEAD' ? {} : body) }));
    await fc.assert(
      fc.asyncProperty(arb, async (req) => {
        const answer = await send(req, chaos.token);
        const label = `${req.method} ${req.path.slice(0, 200)}`;
        expect(answer.status, `${label}: ${JSON.stringify(answer.body)?.slice(0, 300)}`).toBeLessThan(500);
        // A password-protected public link answers its small HTML form with a 401; every other refusal is JSON.
        const htmlForm = answer.status === 401 && req.path.startsWith('/drive/s/') && answer.contentType?.startsWith('text/html');
        // A HEAD answer has no body to check.
        if (answer.status >= 400 && !htmlForm && req.method !== 'HEAD') expectErrorBody(answer, label);
      }),
      { numRuns: CHAOS_RUNS },
    );
  });
}
