// biome-ignore-all lint/style/noRestrictedImports: the build's own config runs in Node, never in the browser
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const TEXT = /\.(js|css|html|svg|json)$/;

/**
 * Writes a gzip and a brotli copy beside every script of the build and every other text file over 1 kB,
 * which the server sends to a client that accepts them (apps/server/src/routes/web.ts), so no request pays
 * for compression.
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
        if (body.length < 1024 && !path.endsWith('.js')) continue;
        writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
      }
    },
  };
}

/**
 * Lets index.html ask for the app's chunk (root.tsx, which the boot module imports dynamically), the chunks it
 * imports and their styles, beside the boot module itself: the app's code is then one round trip to the
 * server away, not two (a busy server answers each after the engine's work). The boot module's import finds
 * them fetched, or on their way.
 */
function preloadApp(): Plugin {
  return {
    name: 'syncscope-preload-app',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, { bundle }) {
        if (!bundle) return;
        const chunks = Object.values(bundle).flatMap((c) => (c.type === 'chunk' ? [c] : []));
        const app = chunks.find((c) => c.facadeModuleId?.endsWith('/src/root.tsx'));
        if (!app) return;
        const files = new Set<string>();
        const styles = new Set<string>();
        // styles in the order the chunks' imports apply them: a chunk's imports' first, then its own
        const walk = (file: string) => {
          const c = bundle[file];
          if (files.has(file) || c?.type !== 'chunk' || c.isEntry) return;
          files.add(file);
          for (const dep of c.imports) walk(dep);
          for (const css of c.viteMetadata?.importedCss ?? []) styles.add(css);
        };
        walk(app.fileName);
        return [
          ...[...styles].map((href) => ({
            tag: 'link',
            attrs: { rel: 'stylesheet', crossorigin: true, href: `./${href}` },
            injectTo: 'head' as const,
          })),
          ...[...files].map((href) => ({
            tag: 'link',
            attrs: { rel: 'modulepreload', crossorigin: true, href: `./${href}` },
            injectTo: 'head' as const,
          })),
        ];
      },
    },
  };
}

const outDir = join(import.meta.dirname, 'dist');

// The built app goes to apps/web/dist, which the server serves. In development (`pnpm --filter
// @syncscope/web dev`) the API and the trace WebSocket are proxied to a server on 127.0.0.1:8080.
export default defineConfig({
  root: import.meta.dirname,
  base: './',
  plugins: [react(), preloadApp(), precompress(outDir)],
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
