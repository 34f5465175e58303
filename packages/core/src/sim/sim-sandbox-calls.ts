// SimRuntime's runtime-info and pod sandbox CRI calls, as a part over its shared call context.
import {
  GrpcCode,
  type PodSandbox,
  type PodSandboxConfig,
  type PodSandboxFilter,
  type PodSandboxStatusResponse,
  type StatusResponse,
  type VersionResponse,
} from '../cri/types.ts';
import { startErrorText } from './container-process.ts';
import { listKey, podSandboxView } from './list-views.ts';
import { HOST_NETNS } from './network.ts';
import { keyed, newId, type SimCallContext } from './sim-call-context.ts';
import { matchLabels, type SandboxRecord, sandboxState, toPodSandboxStatus } from './sim-state.ts';

/**
 * The simulated node's runtime info and pod sandbox CRI calls (Version, Status, RunPodSandbox,
 * StopPodSandbox, RemovePodSandbox, PodSandboxStatus, ListPodSandbox), answered as containerd 1.6 does.
 * A part SimRuntime owns, over its shared call context.
 */
export class SimSandboxCalls {
  constructor(private readonly sim: SimCallContext) {}

  // --- runtime info ------------------------------------------------------------------------------------

  async version(): Promise<VersionResponse> {
    await this.sim.call('Version');
    return {
      version: '0.1.0',
      runtime_name: 'syncscope-sim',
      runtime_version: '0.1.0',
      runtime_api_version: 'v1',
    };
  }

  async status(): Promise<StatusResponse> {
    await this.sim.call('Status');
    const net = this.sim.store.networkReady;
    return {
      status: {
        conditions: [
          { type: 'RuntimeReady', status: true, reason: '', message: '' },
          {
            type: 'NetworkReady',
            status: net,
            reason: net ? '' : 'NetworkPluginNotReady',
            message: net ? '' : 'Network plugin returns error: cni plugin not initialized',
          },
        ],
      },
      info: {},
    };
  }

  // --- sandboxes ---------------------------------------------------------------------------------------

  async runPodSandbox(config: PodSandboxConfig): Promise<string> {
    await this.sim.call('RunPodSandbox');
    const m = config.metadata;
    // containerd names the sandbox from its metadata and refuses a config without one.
    if (!m)
      throw this.sim.life.err('RunPodSandbox', GrpcCode.UNKNOWN, 'sandbox config must include metadata');
    const name = `${m.name}_${m.namespace}_${m.uid}_${m.attempt}`;
    const holder = this.sim.store.sandboxNames.get(name);
    if (holder)
      throw this.sim.life.err(
        'RunPodSandbox',
        GrpcCode.UNKNOWN,
        `failed to reserve sandbox name "${name}": name "${name}" is reserved for "${holder}"`,
      );
    const hostNetwork = config.linux?.security_context?.namespace_options?.network === 'NODE';
    if (hostNetwork && config.hostname) {
      throw this.sim.life.err(
        'RunPodSandbox',
        GrpcCode.UNKNOWN,
        startErrorText('unable to set hostname without a private UTS namespace').replace(
          'unable to start container process: ',
          '',
        ),
      );
    }
    const id = newId();
    const sb: SandboxRecord = {
      id,
      config: { ...config, metadata: m },
      createdAt: this.sim.clock.now(),
      notReady: false,
      hostNetwork,
      ip: '',
      netns: hostNetwork ? HOST_NETNS : id,
      name,
    };
    this.sim.store.addSandbox(sb);
    if (!hostNetwork) {
      if (!this.sim.store.networkReady) {
        // containerd keeps the failed sandbox (NOTREADY); the kubelet has to stop and remove it.
        sb.notReady = true;
        throw this.sim.life.err(
          'RunPodSandbox',
          GrpcCode.UNKNOWN,
          `failed to setup network for sandbox "${id}": cni plugin not initialized`,
        );
      }
      sb.ip = this.sim.net.allocate(id);
    }
    await this.sim.saved();
    return id;
  }

  async stopPodSandbox(id: string): Promise<void> {
    await this.sim.call('StopPodSandbox');
    const sb = this.sim.store.sandboxes.get(id);
    if (!sb)
      throw this.sim.life.err(
        'StopPodSandbox',
        GrpcCode.NOT_FOUND,
        `an error occurred when try to find sandbox "${id}": not found`,
      );
    this.sim.life.stopSandbox(sb);
    await this.sim.saved();
  }

  async removePodSandbox(id: string): Promise<void> {
    await this.sim.call('RemovePodSandbox');
    const sb = this.sim.store.sandboxes.get(id);
    if (!sb) return;
    if (!sb.notReady || sb.ip) this.sim.life.stopSandbox(sb);
    for (const c of this.sim.store.containersOf(id)) this.sim.life.deleteContainer(c);
    this.sim.store.dropSandbox(sb);
    await this.sim.saved();
  }

  async podSandboxStatus(id: string): Promise<PodSandboxStatusResponse> {
    await this.sim.call('PodSandboxStatus');
    const sb = this.sim.store.sandboxes.get(id);
    if (!sb)
      throw this.sim.life.err(
        'PodSandboxStatus',
        GrpcCode.NOT_FOUND,
        'an error occurred when try to find sandbox: not found',
      );
    return { status: toPodSandboxStatus(sb), info: {}, containers_statuses: [], timestamp: '0' };
  }

  async listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]> {
    await this.sim.call('ListPodSandbox');
    const out: PodSandbox[] = [];
    for (const s of this.sim.store.sandboxCandidates(filter)) {
      if (filter?.state && sandboxState(s) !== filter.state.state) continue;
      if (!matchLabels(s.config.labels, filter?.label_selector)) continue;
      out.push(podSandboxView(s));
    }
    return this.sim.lists.answer(keyed('sandboxes', listKey(filter)), out);
  }
}
