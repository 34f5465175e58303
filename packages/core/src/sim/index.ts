export {
  type ActiveFault,
  Faults,
  type LastingFault,
} from './faults.ts';

export { SimNetProber } from './sim-net-prober.ts';
export { type SimNode, startSimNode } from './sim-node.ts';
export { SimRuntime } from './sim-runtime.ts';
