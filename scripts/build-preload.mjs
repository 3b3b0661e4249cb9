// Bundles the preload to one CommonJS file: a sandboxed preload can require only a few Electron modules, never
// the project's own files, and cannot be an ES module.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function buildPreload(outfile = join(root, 'dist', 'preload', 'index.cjs')) {
  await build({
    entryPoints: [join(root, 'preload', 'index.ts')],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['electron'],
    sourcemap: false,
    logLevel: 'warning',
  });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildPreload();
