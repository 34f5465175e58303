/** Test support for the imports routes (imports-quota.int.test.ts, imports-load.int.test.ts). */
import { join } from 'node:path';
import { TraceRecorder } from '@syncscope/core';
import { FakeClock } from '@syncscope/core/clock';
import type { FastifyInstance } from 'fastify';
import { createHttpApp } from '../http.ts';
import type { ImportQuota } from '../imports/store.ts';
import { FakeEngine } from '../testing.ts';

/** The HTTP app over a FakeEngine, keeping its imports in `<dir>/imports` under `quota` (default: the server's). */
export function importsApp(dir: string, quota?: ImportQuota): Promise<FastifyInstance> {
  const clock = new FakeClock();
  return createHttpApp({
    engine: new FakeEngine(clock),
    trace: new TraceRecorder(clock),
    clock,
    importsDir: join(dir, 'imports'),
    importsQuota: quota,
  });
}
