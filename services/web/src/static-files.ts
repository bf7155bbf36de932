import fs from 'node:fs';
import path from 'node:path';

/** One file of the built app, held in memory with its precompressed forms (written at build time). */
export interface StaticFile {
  type: string;
  identity: Buffer;
  br?: Buffer;
  gzip?: Buffer;
  /** Named by its content (Vite's assets/): the same URL is the same bytes forever. */
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** Where Vite writes every file it names by content hash (its `build.assetsDir`). */
export const ASSETS_DIR = 'assets';

export interface BuiltApp {
  /** The app's one HTML document, answered for every page path. */
  index: StaticFile;
  /** `/assets/<name>` → the file. */
  assets: ReadonlyMap<string, StaticFile>;
}

/**
 * Reads the built app (index.html and assets/) once, at start: a few files, a few hundred
 * KB. A `.br` or `.gz` beside a file is its precompressed form. Throws when there is no
 * index.html: a web service without its app must not start.
 */
export function loadBuiltApp(dir: string): BuiltApp {
  const indexPath = path.join(dir, 'index.html');
  if (!fs.existsSync(indexPath)) throw new Error(`no built app in ${dir} (run: node scripts/build.mjs web)`);
  const assets = new Map<string, StaticFile>();
  const assetsDir = path.join(dir, ASSETS_DIR);
  if (fs.existsSync(assetsDir)) {
    for (const entry of fs.readdirSync(assetsDir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || /\.(br|gz)$/.test(entry.name)) continue;
      const file = path.join(entry.parentPath, entry.name);
      const urlPath = `/${ASSETS_DIR}/${path.relative(assetsDir, file).split(path.sep).join('/')}`;
      assets.set(urlPath, readFile(file, true));
    }
  }
  return { index: readFile(indexPath, false), assets };
}

function readFile(file: string, immutable: boolean): StaticFile {
  const variant = (suffix: string) => (fs.existsSync(file + suffix) ? fs.readFileSync(file + suffix) : undefined);
  return {
    type: TYPES[path.extname(file)] ?? 'application/octet-stream',
    identity: fs.readFileSync(file),
    br: variant('.br'),
    gzip: variant('.gz'),
    immutable,
  };
}

/** The coding to send a file in: brotli or gzip when the client takes it (q > 0) and the file has it, else none. */
export function chooseEncoding(acceptEncoding: string | undefined, file: StaticFile): 'br' | 'gzip' | undefined {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const takes = (coding: string) => (accepted.get(coding) ?? (accepted.has('*') ? accepted.get('*')! : 0)) > 0;
  if (file.br && takes('br')) return 'br';
  if (file.gzip && takes('gzip')) return 'gzip';
  return undefined;
}
