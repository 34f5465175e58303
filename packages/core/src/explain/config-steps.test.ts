/**
 * A pod seen from the API before the runtime shows it, as an observer records it: its ADD reads the sync it
 * starts (no sandbox yet → create sandbox, in the words of the engine's plan) with what the source lacks;
 * a DELETE reads the termination with the grace the API gave; the ADD of a pod the API is deleting already
 * is a termination too; a Failed status "Pod was rejected" is admission's refusal. Once a container of the pod
 * ran, an ADD reads the sandbox as ready.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent, TracePayload } from '../events/trace.ts';
import { RULE_CREATE_SANDBOX, RULE_REJECT } from './config-steps.ts';
import { explainTrace } from './explainer.ts';
import { RULE_KILL_DELETE } from './pod-rules.ts';

const REF = { podUID: 'u-1', pod: 'default/web' };
const T0 = Date.UTC(2026, 0, 1, 12);

function trace(...payloads: TracePayload[]): TraceEvent[] {
  return payloads.map((p, i) => ({ ...p, seq: i + 1, time: T0 + i * 1000 }) as TraceEvent);
}

const steps = (evs: TraceEvent[]) => explainTrace(evs).pods[0]?.steps ?? [];

describe('a pod seen from the API before the runtime', () => {
  it('its ADD reads the sandbox creation the sync will do, and says what it assumed', () => {
    const [add] = steps(trace({ type: 'config.update', op: 'ADD', source: 'api', ...REF }));
    expect(add?.verdict).toBe('agrees');
    expect(add?.rule).toBe(RULE_CREATE_SANDBOX);
    expect(add?.model).toContain(
      "decides: no sandbox yet → create sandbox attempt 0; start the pod's containers",
    );
    expect(add?.assumed?.join('\n')).toMatch(/no sandbox or container of the pod in the source/);
    expect(add?.assumed?.join('\n')).toMatch(/names none of the pod's containers/);
  });

  it('its DELETE reads the kill with the grace the API gave, and no container to stop', () => {
    const evs = trace(
      { type: 'config.update', op: 'ADD', source: 'api', ...REF },
      { type: 'config.update', op: 'DELETE', source: 'api', gracePeriodS: 17, ...REF },
    );
    const del = steps(evs)[1];
    expect(del?.source).toBe('config DELETE from api, grace 17s');
    expect(del?.rule).toBe(RULE_KILL_DELETE);
    expect(del?.model).toContain(
      'SyncTerminatingPod: stop every container within 17s, the grace the DELETE gave (deletionGracePeriodSeconds)',
    );
    expect(del?.model.join('\n')).toMatch(/no container to stop/);
  });

  it('the ADD of a pod being deleted already is its termination', () => {
    const [add] = steps(
      trace({
        type: 'config.update',
        op: 'ADD',
        source: 'api',
        deletionTimestamp: new Date(T0 + 5000).toISOString(),
        gracePeriodS: 5,
        ...REF,
      }),
    );
    expect(add?.rule).toBe(RULE_KILL_DELETE);
    expect(add?.model[0]).toMatch(/^HandlePodAdditions: the pod is being deleted already .*, grace 5s$/);
  });

  it('an ADD after a container of the pod ran reads the sandbox as ready', () => {
    const evs = trace(
      { type: 'pleg.event', event: 'ContainerStarted', containerID: 'c1', containerName: 'app', ...REF },
      { type: 'config.update', op: 'ADD', source: 'api', ...REF },
    );
    const add = steps(evs)[1];
    expect(add?.rule).toBe('HandlePodAdditions');
    expect(add?.model.join('\n')).not.toMatch(/create sandbox/);
  });

  it('a Failed status "Pod was rejected" reads as admission refusing the pod, any other as the status manager', () => {
    const status = (message: string) =>
      ({ type: 'status.update', status: { phase: 'Failed', reason: 'OutOfpods', message }, ...REF }) as const;
    const [, rejected, other] = steps(
      trace(
        { type: 'config.update', op: 'ADD', source: 'api', ...REF },
        status("Pod was rejected: Node didn't have enough resource: pods"),
        status('the node was low on resource'),
      ),
    );
    expect(rejected?.rule).toBe(RULE_REJECT);
    expect(rejected?.model[0]).toBe(
      "canAdmitPod refused the pod (OutOfpods): Node didn't have enough resource: pods",
    );
    expect(other?.rule).toBe('status manager');
  });
});
