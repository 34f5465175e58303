// biome-ignore-all lint/style/noRestrictedImports: the build's own config runs in Node, never in the browser
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const TEXT = /\.(js|css|html|svg|json)$/;

/**
 * Writes a gzip and a brotli copy beside every text file of the build (over 1 kB), which the server sends
 * to a client that accepts them (apps/server/src/routes/web.ts), so no request pays for compression.
 */
function precompress(outDir: string): Plugin {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    });
  return {
    name: 'syncscope-precompress',
    apply: 'build',
    closeBundle() {
      for (const path of walk(outDir)) {
        if (!TEXT.test(path)) continue;
        const body = readFileSync(path);
        if (body.length < 1024) continue;
        writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
      }
    },
  };
}

const outDir = join(import.meta.dirname, 'dist');

// The built app goes to apps/web/dist, which the server serves. In development (`pnpm --filter
// @syncscope/web dev`) the API and the trace WebSocket are proxied to a server on 127.0.0.1:8080.
export default defineConfig({
  root: import.meta.dirname,
  base: './',
  plugins: [react(), precompress(outDir)],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rollupOptions: {
      output: {
        // the YAML parser only the apply editor loads, in a chunk of its own beside CodeMirror's
        manualChunks: (id) => (/[\\/]node_modules[\\/].*[\\/]yaml[\\/]/.test(id) ? 'yaml' : undefined),
      },
    },
  },
  server: {
    proxy: {
      '/api': { target: 'http://127.0.0.1:8080', ws: true },
    },
  },
});
