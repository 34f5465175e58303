import { defineConfig } from 'vitest/config';

// Five projects: unit tests beside the code (fake clock, never waiting on the wall clock), slow tests beside
// the code (*.slow.test.ts: the soak, and the few checks timed in real milliseconds), end-to-end tests that
// start the server on the simulated node (real gRPC over a unix socket), scenarios on a private containerd
// (root), and browser tests in Debian's Chromium. scripts/test-all.sh runs them one project at a time.
const besideTheCode = ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts'];
const slow = ['packages/*/src/**/*.slow.test.ts', 'apps/*/src/**/*.slow.test.ts'];
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: besideTheCode,
          exclude: ['**/node_modules/**', ...slow],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'slow',
          include: slow,
          environment: 'node',
          testTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.spec.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'containerd',
          include: ['test/containerd/**/*.spec.ts'],
          testTimeout: 240_000,
          hookTimeout: 240_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.spec.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
