/**
 * GET /api/v1/namespaces/:ns/pods/:name/log?container=&previous=&tailLines=&timestamps=&sinceSeconds=
 *     &sinceTime=&limitBytes=&follow=
 *
 * The logs of one container instance as `kubectl logs` prints them (text/plain): the current instance, or
 * with previous=true the one before it. With follow=true the answer stays open and carries what the
 * instance writes next (kube-api/log-follow.ts) until it stops running or the client goes. Errors are v1 Status objects with the API server's and kubelet's
 * wording (see pod-logs.ts). The log directory is `podLogsDirectory` when given, else the engine's
 * configuration (GET /api/v1/node shows it).
 */
import { isStatus } from '@syncscope/core/api';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE } from '../access.ts';
import { followLog, isRunning, logLimits, startOffsetOf } from '../kube-api/log-follow.ts';
import { logAttempt, parseCriLog, readPodLogFile, resolveLogContainer } from '../pod-logs.ts';
import { badParam, badRequest, intParam, notFound, sendStatus } from '../status.ts';

export interface LogsRoutesOptions {
  podLogsDirectory?: string;
}

interface LogQuery {
  container?: string;
  previous?: string;
  tailLines?: string;
  timestamps?: string;
  sinceSeconds?: string;
  sinceTime?: string;
  limitBytes?: string;
  follow?: string;
}

function boolParam(param: string, v: string | undefined) {
  if (v === undefined || v === '' || v === 'false') return false;
  if (v === 'true') return true;
  return badParam(param, v, 'must be true or false');
}

async function logsRoutes(app: FastifyInstance, opts: LogsRoutesOptions): Promise<void> {
  const { engine } = app.syncscope;

  app.get<{ Params: { ns: string; name: string }; Querystring: LogQuery }>(
    '/api/v1/namespaces/:ns/pods/:name/log',
    READ_ROUTE,
    async (req, reply) => {
      const q = req.query;
      const previous = boolParam('previous', q.previous);
      if (isStatus(previous)) return sendStatus(reply, previous);
      const timestamps = boolParam('timestamps', q.timestamps);
      if (isStatus(timestamps)) return sendStatus(reply, timestamps);
      const tailLines = intParam('tailLines', q.tailLines);
      if (isStatus(tailLines)) return sendStatus(reply, tailLines);
      const follow = boolParam('follow', q.follow);
      if (isStatus(follow)) return sendStatus(reply, follow);
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
