/**
 * The documentation holds together: every relative link in README.md and docs/ leads to a file of the repository
 * (and to a heading in it), every document the code, tests and docs cite is in the repository with the section
 * cited, and the README stays short with its first-use block as the first-use check reads it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const SKIP = new Set(['node_modules', 'dist', 'release', '.git', 'test-artifacts']);

function walk(dir: string, keep: (path: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, keep, out);
    else if (keep(path)) out.push(path);
  }
  return out;
}

const markdown = [join(ROOT, 'README.md'), ...walk(join(ROOT, 'docs'), (p) => p.endsWith('.md'))];
const sources = walk(ROOT, (p) => /\.(ts|tsx|mts|mjs|cjs|js|md|yml|yaml|json|sh|css|html)$/.test(p) && !p.endsWith('package-lock.json'))
  .concat(join(ROOT, '.ci', 'run'))
  .filter((p) => p !== join(ROOT, 'test', 'docs.test.ts'));
const read = (path: string) => readFileSync(path, 'utf8');
const shown = (path: string) => relative(ROOT, path);

/** Markdown without its code: fenced blocks and inline code hold examples, not links. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, … */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of text.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

describe('the documentation', () => {
  it('every relative link in README.md and docs/ leads to a file and heading of the repository', () => {
    const broken: string[] = [];
    for (const file of markdown) {
      for (const match of prose(read(file)).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
        if (!resolved.startsWith(ROOT) || !existsSync(resolved)) {
          broken.push(`${shown(file)}: ${target} (no such file)`);
          continue;
        }
        if (anchor !== undefined && resolved.endsWith('.md') && !anchors(read(resolved)).has(anchor)) {
          broken.push(`${shown(file)}: ${target} (no such heading in ${shown(resolved)})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('every document cited is in the repository, with the section cited', () => {
    const design = read(join(ROOT, 'docs', 'design.md'));
    const sections = new Set([...design.matchAll(/^## (\d+)\. /gm)].map((m) => m[1]));
    expect(sections.size).toBeGreaterThanOrEqual(8);
    const wrong: string[] = [];
    const outside = [/\bDESIGN(\.md)?\b/, /\.\.\/shared\//, /\/work\/shared\b/, /REAL-DEPLOYMENTS/, /\bEXAMPLES\.md\b/, /\bissue #\d+/i];
    for (const file of sources) {
      const text = read(file);
      text.split('\n').forEach((line, i) => {
        for (const pattern of outside) if (pattern.test(line)) wrong.push(`${shown(file)}:${i + 1}: cites a document not in the repository: ${line.trim()}`);
        for (const m of line.matchAll(/design\.md\)?\s*§(\d+)/g)) {
          if (!sections.has(m[1]!)) wrong.push(`${shown(file)}:${i + 1}: docs/design.md has no §${m[1]}`);
        }
        // A path under docs/ named in prose or a comment (a quoted one is a test's file name, not a citation).
        for (const m of line.matchAll(/(?<![\w/.'"-])docs\/[\w/.-]+\.md\b/g)) {
          if (!existsSync(join(ROOT, m[0]))) wrong.push(`${shown(file)}:${i + 1}: ${m[0]} is not in the repository`);
        }
      });
    }
    expect(wrong).toEqual([]);
  });

  it('the README is short, and its first-use block is what the first-use check runs', () => {
    const readme = read(join(ROOT, 'README.md'));
    expect(Buffer.byteLength(readme)).toBeLessThan(12_000);
    const block = /<!-- first-use:begin -->\n```sh\n([\s\S]*?)```\n<!-- first-use:end -->/.exec(readme);
    expect(block, 'README.md has no first-use block').not.toBeNull();
    const lines = block![1]!.split('\n').filter((l) => l.trim() !== '');
    const commands = lines.map((l) => l.replace(/\s+#.*$/, ''));
    expect(commands[0]).toBe('npm ci');
    expect(commands[1]).toBe('npm link');
    // The check needs a server started in the background, a sign-in and a sync, in that order.
    const at = (pattern: RegExp) => commands.findIndex((c) => pattern.test(c));
    expect(at(/^drivesync server .*&$/)).toBeGreaterThan(1);
    expect(at(/^drivesync (register|login) /)).toBeGreaterThan(at(/^drivesync server /));
    expect(at(/^drivesync sync \S+$/)).toBe(commands.length - 1);
    expect(read(join(ROOT, 'package.json'))).toContain('"first-use-check": "node scripts/first-use-check.mjs"');
  });
});
