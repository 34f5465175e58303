import { CriError, GrpcCode } from '../cri/types.ts';
import type { FaultHooks } from './faults.ts';
import { type ImageCatalogue, normalizeImageRef } from './images.ts';
import type { SimLifecycle } from './sim-lifecycle.ts';
import { containerState } from './sim-state.ts';
import type { SimStore } from './sim-store.ts';

/**
 * The fault layer's hooks (faults.ts) on one simulated node: each acts on the node's records through its
 * store and lifecycle parts, returns the sentence the fault log shows, or throws when the target does not
 * fit. Built once by SimRuntime; the hooks are called by Faults when a fault is applied and never block.
 */
export function simFaultHooks(store: SimStore, life: SimLifecycle, images: ImageCatalogue): FaultHooks {
  const container = (id: string) => {
    const c = store.containers.get(id);
    if (!c) throw new Error(`no container ${id}`);
    return c;
  };
  return {
    exitContainer: (id, code) => {
      const c = container(id);
      if (containerState(c) !== 'CONTAINER_RUNNING' && containerState(c) !== 'CONTAINER_UNKNOWN') {
        throw new Error(`container ${short(id)} is not running`);
      }
      life.finish(c, code);
      return `container ${c.config.metadata.name} (${short(id)}) exited with code ${code}`;
    },
    unknownContainer: (id) => {
      const c = container(id);
      if (containerState(c) !== 'CONTAINER_RUNNING') throw new Error(`container ${short(id)} is not running`);
      c.unknown = true;
      return `container ${c.config.metadata.name} (${short(id)}) is now in CONTAINER_UNKNOWN state`;
    },
    killSandbox: (id) => {
      const sb = store.sandboxes.get(id);
      if (!sb) throw new Error(`no sandbox ${id}`);
      for (const c of store.containersOf(id)) life.kill(c);
      sb.notReady = true;
      return `sandbox of ${sb.config.metadata.namespace}/${sb.config.metadata.name} (${short(id)}) died; its containers were killed`;
    },
    removeImage: (name, fromRegistry) => {
      const p = normalizeImageRef(name);
      if (!p.ok) throw new Error(p.error);
      images.removeLocal(p.ref);
      if (fromRegistry) images.setUnavailable(p.ref, true);
      return fromRegistry
        ? `image ${p.ref} removed from the node and the registry`
        : `image ${p.ref} removed from the node`;
    },
    restoreImage: (name) => {
      const p = normalizeImageRef(name);
      if (!p.ok) throw new Error(p.error);
      images.setUnavailable(p.ref, false);
      return `image ${p.ref} can be pulled again`;
    },
    slowPull: (name, ms) => {
      const p = normalizeImageRef(name);
      if (!p.ok || !images.setPullDelay(p.ref, ms)) throw new Error(`no image ${name} in the catalogue`);
      return `pulling ${p.ref} takes ${ms} ms`;
    },
    setNetworkReady: (ready) => {
      store.networkReady = ready;
      return ready
        ? 'network plugin ready'
        : 'network plugin not initialized: new pod-network sandboxes fail';
    },
    outageStarted: () =>
      store.breakStreams(new CriError('GetContainerEvents', GrpcCode.UNAVAILABLE, 'Connection dropped')),
  };
}

function short(id: string): string {
  return id.slice(0, 13);
}
