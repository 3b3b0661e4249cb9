/**
 * The window's build: Preact through Vite (Oxc's JSX transform with Preact's runtime; no plugin needed), relative
 * asset paths (the app loads it from a file: URL), and the CSP as a meta tag (it also goes out as a header).
 */
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { defineConfig, type InlineConfig, type Plugin } from 'vite';
import { CSP_META } from './main/app/csp.js';

const here = dirname(fileURLToPath(import.meta.url));

function cspMeta(): Plugin {
  return {
    name: 'drivesync-csp-meta',
    transformIndexHtml: () => [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CSP_META }, injectTo: 'head-prepend' }],
  };
}

export function rendererConfig(outDir = join(here, 'dist', 'renderer')): InlineConfig {
  return {
    configFile: false,
    root: join(here, 'renderer'),
    base: './',
    logLevel: 'warn',
    plugins: [cspMeta()],
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: {
      outDir,
      emptyOutDir: true,
      target: 'chrome120',
      modulePreload: false,
      sourcemap: false,
      assetsInlineLimit: 0,
    },
  };
}

export default defineConfig(rendererConfig());
