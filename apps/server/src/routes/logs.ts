/**
 * GET /api/v1/namespaces/:ns/pods/:name/log?container=&previous=&tailLines=&timestamps=&sinceSeconds=
 *     &sinceTime=&limitBytes=&follow=
 *
 * The logs of one container instance as `kubectl logs` prints them (text/plain): the current instance, or
 * with previous=true the one before it. With follow=true the answer stays open and carries what the
 * instance writes next (kube-api/log-follow.ts) until it stops running or the client goes; a client that stops
 * reading holds the follower at the file (backpressure), so it costs no more memory however much the
 * container writes. Errors are v1 Status objects with the API server's and kubelet's
 * wording (see pod-logs.ts). The log directory is `podLogsDirectory` when given, else the engine's
 * configuration (GET /api/v1/node shows it).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { isStatus } from '@syncscope/core/api';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE } from '../access.ts';
import { followLog, isRunning, logLimits, startOffsetOf } from '../kube-api/log-follow.ts';
import { logAttempt, parseCriLog, readPodLogFile, resolveLogContainer } from '../pod-logs.ts';
import { badRequest, notFound, sendStatus } from '../status.ts';
import { BoolQuery, checked, IntQuery, PathParam, TextQuery } from './params.ts';

interface LogsRoutesOptions {
  podLogsDirectory?: string;
}

const LogParams = Type.Object({ ns: PathParam(), name: PathParam() });
/** The since and limit options stay text here: logLimits reads them with the API server's rules. */
const LogQuery = Type.Object({
  container: TextQuery(),
  previous: BoolQuery(),
  tailLines: IntQuery(),
  timestamps: BoolQuery(),
  sinceSeconds: TextQuery(),
  sinceTime: TextQuery(),
  limitBytes: TextQuery(),
  follow: BoolQuery(),
});

async function logsRoutes(fastify: FastifyInstance, opts: LogsRoutesOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { engine } = app.syncscope;

  app.get(
    '/api/v1/namespaces/:ns/pods/:name/log',
    checked(READ_ROUTE, { params: LogParams, querystring: LogQuery }),
    async (req, reply) => {
      const q = req.query;
      const previous = q.previous ?? false;
      const timestamps = q.timestamps ?? false;
      const tailLines = q.tailLines;
      const follow = q.follow ?? false;
      const limits = logLimits(q, app.syncscope.clock.now());
      if (isStatus(limits)) return sendStatus(reply, limits);

      const pod = engine.getPod(req.params.ns, req.params.name);
      if (!pod?.metadata.uid) return sendStatus(reply, notFound(req.params.name));
      const container = resolveLogContainer(pod, q.container);
      if (isStatus(container)) return sendStatus(reply, container);
      const attempt = logAttempt(pod, container, previous);
      if (isStatus(attempt)) return sendStatus(reply, attempt);

      const dir = opts.podLogsDirectory ?? engine.nodeInfo().configuration.podLogsDirectory;
      const raw = await readPodLogFile(dir, pod, container, attempt);
      if (isStatus(raw)) {
        // the status names a previous instance whose file is gone (removed with it): the kubelet's words
        if (previous && raw.code === 404) {
          return sendStatus(
            reply,
            badRequest(
              `previous terminated container "${container}" in pod "${pod.metadata.name}" not found`,
            ),
          );
        }
        return sendStatus(reply, raw);
      }
      const text = parseCriLog(raw, { tailLines, timestamps, ...limits });
      reply.type('text/plain; charset=utf-8');
      if (!follow || (limits.limitBytes !== undefined && Buffer.byteLength(text) >= limits.limitBytes)) {
        return reply.send(text);
      }
      return reply.send(
        followLog({
          dir,
          pod,
          container,
          attempt,
          first: text,
          startOffset: startOffsetOf(raw),
          opts: { timestamps, ...limits },
          running: () => isRunning(engine.getPodByUID(pod.metadata.uid), container, attempt),
        }),
      );
    },
  );
}

export default fp(logsRoutes, { name: 'syncscope-logs', dependencies: ['syncscope-context'] });
