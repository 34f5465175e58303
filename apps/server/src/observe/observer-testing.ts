/**
 * For the observer's unit tests: our engine (a Kubelet with its own trace) on a simulated node under a FakeClock,
 * and an Observer of the same runtime recording into its own trace, its PLEG stopped so the test relists by hand.
 */
import { Kubelet, SimRuntime, TraceRecorder } from '@syncscope/core';
import { FakeClock } from '@syncscope/core/clock';
import { defaultKubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import { Observer } from './observer.ts';

export interface ObservedNode {
  clock: FakeClock;
  kl: Kubelet;
  /** the engine's trace */
  kubelet: TraceRecorder;
  observer: Observer;
  /** the observer's trace */
  observed: TraceRecorder;
}

/** Container logs go under `logDir`; neither loop is started (the caller starts the Kubelet). */
export function observedNode(logDir: string): ObservedNode {
  const clock = new FakeClock();
  const sim = new SimRuntime({ clock });
  const config = { ...defaultKubeletConfiguration, podLogsDirectory: logDir };
  const kubelet = new TraceRecorder(clock);
  const kl = new Kubelet({
    cri: sim,
    clock,
    trace: kubelet,
    config,
    runtimeEndpoint: 'sim',
    simulated: true,
    random: () => 0,
  });
  const observed = new TraceRecorder(clock);
  const observer = new Observer({ cri: sim, clock, trace: observed, config, endpoint: 'sim' });
  observer.start();
  observer.pleg.stop(); // relisted by hand
  return { clock, kl, kubelet, observer, observed };
}
