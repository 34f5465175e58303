/**
 * What a pod's exec or attach request asks for, checked as the apiserver and the kubelet check it before
 * any stream opens (planStream: pure). Refusals are in their words:
 *   - the apiserver (a Status): no command (`you must specify at least 1 command`), a container not in the
 *     pod, no container named in a pod of several, none of stdin/stdout/stderr asked for;
 *   - the kubelet (plain text, as the apiserver passes its answer on): a container with no running
 *     instance, `container not found ("<name>")`, which kubectl prints as `unable to upgrade connection: …`.
 * `?command=` is given once per word (kubectl sends `?command=sh&command=-c&command=exit 3`).
 */
import { Type } from '@sinclair/typebox';
import type { Pod, Status } from '@syncscope/core/api';
import { BoolQuery, compileQuery, TextQuery } from '../routes/params.ts';
import type { ExecResult } from '../sim-control.ts';
import { badRequest } from '../status.ts';

export type StreamKind = 'exec' | 'attach';

const StreamQuery = Type.Object({
  command: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { want: 'must be text' })),
  container: TextQuery(),
  stdin: BoolQuery(),
  stdout: BoolQuery(),
  stderr: BoolQuery(),
  tty: BoolQuery(),
});
const readQuery = compileQuery(StreamQuery);

/** An exec or attach the pod can take. */
export interface StreamPlan {
  kind: StreamKind;
  container: string;
  /** The runtime's container ID (without the `containerd://` scheme). */
  containerId: string;
  /** exec's argv; empty for attach. */
  command: string[];
  stdin: boolean;
  stdout: boolean;
  /** false under a tty: the terminal carries both outputs on stdout. */
  stderr: boolean;
  tty: boolean;
}

/** A refusal: a Status, or the kubelet's plain-text answer with its HTTP code. */
export type StreamRefusal = { status: Status } | { text: string; code: number };

/** Checks the request against the pod; the plan, or the refusal to answer. */
export function planStream(
  kind: StreamKind,
  pod: Pod,
  query: Record<string, unknown>,
): StreamPlan | StreamRefusal {
  const read = readQuery(query);
  if (read.error) return { status: read.error };
  const q = read.value;
  const name = pod.metadata.name ?? '';
  const command = q.command === undefined ? [] : typeof q.command === 'string' ? [q.command] : q.command;
  if (kind === 'exec' && command.length === 0)
    return { status: badRequest('you must specify at least 1 command') };
  const names = pod.spec.containers.map((c) => c.name);
  let container = q.container ?? '';
  if (container === '') {
    if (names.length !== 1)
      return {
        status: badRequest(
          `a container name must be specified for pod ${name}, choose one of: [${names.join(' ')}]`,
        ),
      };
    container = names[0] as string;
  } else if (!names.includes(container)) {
    return { status: badRequest(`container ${container} is not valid for pod ${name}`) };
  }
  const tty = q.tty ?? false;
  const stdin = q.stdin ?? false;
  const stdout = q.stdout ?? false;
  const stderr = (q.stderr ?? false) && !tty;
  if (!stdin && !stdout && !(q.stderr ?? false))
    return { status: badRequest('you must specify at least 1 of stdin, stdout, stderr') };
  const st = pod.status?.containerStatuses?.find((s) => s.name === container);
  const id = st?.state?.running && st.containerID ? st.containerID.replace(/^[a-z0-9.+-]*:\/\//, '') : '';
  if (id === '') return { text: `container not found (${JSON.stringify(container)})`, code: 500 };
  return { kind, container, containerId: id, command, stdin, stdout, stderr, tty };
}

export const isRefusal = (p: StreamPlan | StreamRefusal): p is StreamRefusal => !('kind' in p);

/** Runs `cmd` in a running container to its end, `stdin` read whole (SimControl.exec). */
export type ExecRunner = (
  containerId: string,
  cmd: string[],
  stdin: string,
  timeoutS: number,
) => Promise<ExecResult>;
