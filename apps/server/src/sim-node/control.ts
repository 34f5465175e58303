/**
 * The simulated node's controls for the routes (routes/sim.ts) when the node is a process of its own, made
 * from the server's link to it (./link.ts).
 */
import type { RealClock } from '@syncscope/core/clock';
import type { RuntimeService } from '@syncscope/core/cri';
import type { SimControl } from '../sim-control.ts';
import type { SimNodeLink } from './link-state.ts';

/**
 * The simulated node's controls for the routes (routes/sim.ts) when the node is a process: faults over its
 * control socket, the lookups they need over CRI, and the speed set on the node first, then on `clock` to the
 * very state the node took (absent when the server does not own its clock).
 */
export function simNodeControl(
  link: SimNodeLink,
  cri: Pick<RuntimeService, 'listPodSandbox' | 'listContainers'>,
  clock: RealClock | undefined,
  record: SimControl['record'],
): SimControl {
  return {
    runtime: {
      faults: link.client.faults,
      listPodSandbox: (f) => cri.listPodSandbox(f),
      listContainers: (f) => cri.listContainers(f),
    },
    exec: (id, cmd, stdin, timeoutS) => link.client.exec(id, cmd, stdin, timeoutS),
    clock: clock && {
      get speed() {
        return clock.speed;
      },
      setSpeed: async (speed: number) => clock.setState(await link.client.setSpeed(speed)),
    },
    record,
  };
}
