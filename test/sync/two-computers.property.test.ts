/**
 * Two computers live at once, as a property: two `drivesync sync DIR` processes (separate state folders, one account)
 * watch two folders while random changes — create, edit in place, atomic save, rename, move, delete, and the same for
 * folders — are made on either folder, with random pauses of 0 to 2.5 s and bursts. When both have settled:
 * - both folders and the drive hold the same tree (duplicate names on the drive as every computer names them);
 * - every version written on a computer, and not overwritten or deleted there afterwards, is in a folder (conflicted
 *   copies included) or in the drive's trash;
 * - no version is in the tree twice (every write is unique: nothing touched on one computer only is duplicated);
 * - no temp file is left in either folder;
 * - both stop cleanly on SIGTERM (exit 0, no stack trace).
 * `DRIVESYNC_TWO_RUNS` sets the number of seeds (10 in `npm test`, 200 in `npm run soak`); a failure prints its seed
 * and its changes, and `DRIVESYNC_TWO_SEED=N` replays that seed alone.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { localTree, sorted } from '../helpers/sync.js';
import { abs, apply, drive, eachSeed, untilAgreed, startSync, stepsOf, type Versions } from '../helpers/two-computers.js';
import { tempDir } from '../helpers/temp.js';
import { holds } from '../helpers/eventually.js';
const RUNS = Number(process.env.DRIVESYNC_TWO_RUNS ?? 10);
const REPLAY = process.env.DRIVESYNC_TWO_SEED === undefined ? undefined : Number(process.env.DRIVESYNC_TWO_SEED);
/** Seeds run at once (each its own account, folders and processes). */
const PARALLEL = 2;

describe('two computers live at once: random changes on both, then both settle', () => {
  let server: TestServer;
  const scratch = tempDir('two');
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  async function runSeed(seed: number): Promise<void> {
    const { id: userId, token } = await server.register(`two-${seed}-${process.pid}@example.com`);
    const base = join(scratch, `seed-${seed}`);
    const A = join(base, 'A');
    const B = join(base, 'B');
    mkdirSync(join(A, 'docs'), { recursive: true });
    mkdirSync(join(A, 'pics'));
    mkdirSync(B);
    const versions: Versions = { writer: new Map(), dropped: new Set() };
    let serial = 0;
    const next = () => `-${seed}-${++serial}`;
    for (const path of ['a.txt', 'docs/b.txt', 'docs/notes.md', 'pics/plan.txt']) {
      const content = `A${next()}`;
      versions.writer.set(content, 'A');
      writeFileSync(abs(A, path), content);
    }
    const steps = stepsOf(seed);
    const done: string[] = [];
    const a = startSync(server, token, join(base, 'homeA'), A);
    const b = startSync(server, token, join(base, 'homeB'), B);
    const report = async (why: string) => {
      const { tree, trash } = await drive(server, userId).catch(() => ({ tree: new Map(), trash: new Set() }));
      return [
        `two-computer property failed (seed ${seed}): ${why}; replay with DRIVESYNC_TWO_SEED=${seed} npx vitest run test/sync/two-computers.property.test.ts`,
        `changes: ${JSON.stringify(steps)}`,
        `made: ${done.join('; ')}`,
        `A: ${JSON.stringify(sorted(localTree(A)))}`,
        `B: ${JSON.stringify(sorted(localTree(B)))}`,
        `drive: ${JSON.stringify(sorted(tree))}`,
        `trash: ${JSON.stringify([...trash])}`,
        `A out: ${a.out()}\nA err: ${a.err()}`,
        `B out: ${b.out()}\nB err: ${b.err()}`,
      ].join('\n');
    };
    try {
      const same = async () => {
        const here = JSON.stringify(sorted(localTree(A)));
        return here === JSON.stringify(sorted(localTree(B))) && here === JSON.stringify(sorted((await drive(server, userId)).tree));
      };
      if (!(await holds(async () => /^watching /m.test(a.out()) && /^watching /m.test(b.out()) && (await same()), { within: 30_000 }))) {
        throw new Error(await report('the first sync did not converge'));
      }
      for (const step of steps) {
        await sleep(step.pause);
        const root = step.on === 'A' ? A : B;
        done.push(`${step.on}: ${apply(root, step.on, step, versions, next)}`);
      }
      // Settled: the same everywhere, three looks in a row a second apart.
      const settled = await untilAgreed(same, 90_000);
      if (!settled) throw new Error(await report('the computers did not converge'));
      const { tree, trash } = await drive(server, userId);
      const final = localTree(A);
      const contents = [...final.values()].filter((c) => c !== '/');
      const twice = contents.filter((c, i) => contents.indexOf(c) !== i);
      if (twice.length > 0) throw new Error(await report(`versions in the tree twice: ${twice.join(', ')}`));
      const lost = [...versions.writer.keys()].filter((v) => !versions.dropped.has(v) && !contents.includes(v) && !trash.has(v));
      if (lost.length > 0) throw new Error(await report(`versions lost: ${lost.join(', ')}`));
      const leftovers = [...final.keys()].filter((p) => /\.(tmp|part)$/.test(p));
      for (const dir of [A, B]) {
        const tmp = join(dir, '.drivesync', 'tmp');
        if (existsSync(tmp) && statSync(tmp).isDirectory()) leftovers.push(...readdirSync(tmp).map((f) => `${dir}/.drivesync/tmp/${f}`));
      }
      if (leftovers.length > 0) throw new Error(await report(`temp files left: ${leftovers.join(', ')}`));
      void tree;
    } finally {
      a.child.kill('SIGTERM');
      b.child.kill('SIGTERM');
    }
    const [codeA, codeB] = await Promise.all([a.exited, b.exited]);
    for (const [name, code, run] of [['A', codeA, a], ['B', codeB, b]] as const) {
      if (code !== 0 || /\n\s+at /.test(run.err())) throw new Error(await report(`${name} did not stop cleanly (exit ${code})`));
    }
  }

  const seeds = REPLAY !== undefined ? [REPLAY] : Array.from({ length: RUNS }, (_, i) => 1000 + i);
  it(
    `${seeds.length} seed${seeds.length === 1 ? '' : 's'}: both folders and the drive agree, nothing is lost or duplicated`,
    async () => {
      const failures = await eachSeed(seeds, PARALLEL, runSeed);
      if (failures.length > 0) console.error(failures.join('\n\n'));
      expect(failures.map((f) => f.split('\n')[0])).toEqual([]);
    },
    seeds.length * 150_000,
  );
});
