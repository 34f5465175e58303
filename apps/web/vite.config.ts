import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The built app goes to apps/web/dist, which the server serves. In development (`pnpm --filter
// @syncscope/web dev`) the API and the trace WebSocket are proxied to a server on 127.0.0.1:8080.
export default defineConfig({
  root: import.meta.dirname,
  base: './',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true },
  server: {
    proxy: {
      '/api': { target: 'http://127.0.0.1:8080', ws: true },
    },
  },
});
