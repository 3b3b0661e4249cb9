// Builds the parts of the desktop app that tsc does not: the renderer (Vite) and the sandboxed preload (esbuild).
import { build } from 'vite';
import { rendererConfig } from '../vite.renderer.config.js';
// @ts-expect-error -- a plain .mjs script without declarations
import { buildPreload } from './build-preload.mjs';

await build(rendererConfig());
await (buildPreload as () => Promise<string>)();
