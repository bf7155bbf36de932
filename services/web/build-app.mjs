// Builds the web app with Vite (vite.config.mts) into `outDir` and writes, beside each
// text file, its brotli (.br) and gzip (.gz) forms: the server sends those as they are,
// compressing nothing per request. scripts/build.mjs calls it for the web service, into
// the dist/public it is building.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
const COMPRESSED = /\.(html|js|css|svg|json|txt)$/;

export async function buildApp(outDir) {
  // Always React's production build, whatever NODE_ENV the caller runs under (jest's
  // global setup builds the services with NODE_ENV=test, which Vite would otherwise follow).
  const callersEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile: path.join(here, 'vite.config.mts'),
      mode: 'production',
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true },
    });
  } finally {
    if (callersEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = callersEnv;
  }
  const files = readdirSync(outDir, { recursive: true }).map(String).filter((file) => COMPRESSED.test(file) && statSync(path.join(outDir, file)).isFile());
  for (const file of files) {
    const full = path.join(outDir, file);
    const bytes = readFileSync(full);
    writeFileSync(`${full}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
    writeFileSync(`${full}.gz`, gzipSync(bytes, { level: 9 }));
  }
  return outDir;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildApp(process.argv[2] ?? path.join(here, 'dist/public'));
}
