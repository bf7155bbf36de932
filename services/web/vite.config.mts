import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The app's build (`node scripts/build.mjs web` runs it, writing dist/public): one HTML
 * document, its scripts and styles as files named by content under assets/ (the server
 * caches them for a year), no inline script (the Content-Security-Policy allows none), no
 * source maps shipped.
 */
export default defineConfig({
  root: path.join(here, 'app'),
  base: '/',
  publicDir: false,
  plugins: [react()],
  build: {
    outDir: path.join(here, 'dist/public'),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Nothing inlined as a data: URL: every asset is a file under the CSP's 'self'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: 'es2022',
    reportCompressedSize: false,
  },
});
