/**
 * The managed server's container log rotation: the kubelet's container log manager over the server's CRI
 * client, with its failures warned once per spell.
 */
import type { RemoteRuntime } from '@syncscope/core';
import type { Clock } from '@syncscope/core/clock';
import type { KubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import { ContainerLogManager } from '@syncscope/core/kubelet/logs';

/**
 * The kubelet's container log manager on this server's runtime (kubelet.go starts it in Run): the logs of
 * the running containers it created are rotated at containerLogMaxSizeBytes. A failure is warned once until
 * the next round without it (a runtime that is down would say the same every 10 s).
 */
export function containerLogManager(
  config: KubeletConfiguration,
  cri: RemoteRuntime,
  clock: Clock,
  warn: (msg: string) => void,
): ContainerLogManager {
  let said = new Set<string>();
  let saying = new Set<string>();
  const manager = new ContainerLogManager({
    runtime: {
      listContainers: async (f) => {
        // a round begins: what the last one said and this one does not is over
        said = saying;
        saying = new Set();
        return cri.listContainers(f);
      },
      containerStatus: (id) => cri.containerStatus(id),
      reopenContainerLog: (id) => cri.reopenContainerLog(id),
    },
    clock,
    policy: { maxSize: config.containerLogMaxSizeBytes, maxFiles: config.containerLogMaxFiles },
    monitorIntervalMs: config.containerLogMonitorIntervalMs,
    ownershipLabel: config.ownershipLabel,
    onError: (message, err) => {
      const line = `container log manager: ${message}: ${err instanceof Error ? err.message : String(err)}`;
      saying.add(line);
      if (!said.has(line)) warn(line);
    },
  });
  return manager;
}
