import { defineConfig } from 'vitest/config';
import DurationSequencer from './test/support/duration-sequencer.ts';

// Three tiers. unit: tests beside the code that run in the test's own process on the fake clock (no child
// processes, no listening sockets, no waiting on the wall clock); `pnpm test:quick` runs them. integration:
// tests beside the code named *.int.test.ts (child processes, real sockets, real time, the soak). Both take
// test/lint too: checks over the project's own source (import cycles, layer rules). Then the
// end-to-end projects: the server on the simulated node (real gRPC over a unix socket), scenarios on a
// private containerd (root) and browser tests in Debian's Chromium. scripts/test-all.sh runs them all.
const besideTheCode = [
  'packages/*/src/**/*.test.ts',
  'apps/*/src/**/*.test.ts',
  'test/lint/**/*.test.ts',
  'test/support/**/*.test.ts',
];
// the servers and simulated nodes these projects start run from one bundle (test/support/bundle-setup.ts)
const globalSetup = ['test/support/bundle-setup.ts'];
const integration = [
  'packages/*/src/**/*.int.test.ts',
  'apps/*/src/**/*.int.test.ts',
  'test/lint/**/*.int.test.ts',
];
export default defineConfig({
  test: {
    // `--shard=i/n` splits a tier's files by their recorded time (test/durations.json), not by their count
    sequence: { sequencer: DurationSequencer },
    // the pools take `isolate` from here, not from a project. Without it every file gets a new thread (unit)
    // or process (every other project) that loads the module graph again: a few seconds of CPU a file. So each
    // tier's files share one worker, one after another, and each file closes what it started (its servers,
    // browsers, child processes, containerd) and puts back what it changed
    poolOptions: { threads: { isolate: false }, forks: { isolate: false } },
    projects: [
      {
        test: {
          name: 'unit',
          include: besideTheCode,
          exclude: ['**/node_modules/**', ...integration],
          environment: 'node',
          // one module graph per worker (not per file): collecting took most of the tier's time, and no unit
          // test leaves state behind in a module
          pool: 'threads',
          isolate: false,
          // a few tests decode tens of thousands of events: seconds of CPU when the machine's cores are busy
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          globalSetup,
          include: integration,
          environment: 'node',
          testTimeout: 300_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          globalSetup,
          include: ['test/e2e/**/*.spec.ts'],
          // a test that restarts a server process several times takes 40 s with the cores busy
          testTimeout: 120_000,
          hookTimeout: 120_000,
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
          globalSetup,
          include: ['test/browser/**/*.spec.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          // a page's layout settles within a second when the machine is idle, not beside four other shards:
          // expect.poll waits on it that long at most before it fails
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
});
