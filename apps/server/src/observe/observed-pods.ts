/**
 * The pods observe mode shows: those the runtime shows (built by pod-view.ts as the PLEG reports them), and,
 * once the API's pods are attached (api-source.ts), those too, with the API's metadata and spec over the
 * runtime's view. The Observer's reads and the log join look pods up here.
 */
import type { AdmittedPod, PodStatusRT } from '@syncscope/core';
import type { Pod } from '@syncscope/core/api';
import type { PodRef } from '@syncscope/core/events/trace';
import { type ObservedIdentity, withApiPod } from './pod-view.ts';

/** The API's pods bound to the node (api-source.ts ApiSource). */
export interface ApiPods {
  get(uid: string): Pod | undefined;
  all(): Pod[];
  ref(uid: string): PodRef | undefined;
}

export interface Observed {
  who: ObservedIdentity;
  ref: PodRef;
  status: PodStatusRT;
  pod: AdmittedPod;
  statusJson: string;
}

export class ObservedPods {
  /** the pods the runtime shows, by UID */
  readonly pods = new Map<string, Observed>();
  private api: ApiPods | undefined;

  /** From now on the API's pods are shown beside the runtime's, and the log's config ops and Events left out. */
  attachApi(api: ApiPods): void {
    this.api = api;
  }

  get apiWatched(): boolean {
    return this.api !== undefined;
  }

  /** The API's object of the pod, when the API is attached and holds it. */
  apiPod(uid: string): Pod | undefined {
    return this.api?.get(uid);
  }

  /** Does the runtime show this pod (a sandbox or a container)? */
  onRuntime(uid: string): boolean {
    return this.pods.has(uid);
  }

  /** The pod as shown: the runtime's view, with the API's metadata and spec when it holds the pod. */
  shown(uid: string): AdmittedPod | undefined {
    const o = this.pods.get(uid);
    const a = this.api?.get(uid);
    const p = a ? withApiPod(o?.pod, a) : o?.pod;
    return p && structuredClone(p);
  }

  private uids(): Set<string> {
    const all = new Set(this.pods.keys());
    for (const p of this.api?.all() ?? []) if (p.metadata.uid) all.add(p.metadata.uid);
    return all;
  }

  podRef(podUID: string | undefined, pod: string | undefined): PodRef | undefined {
    if (podUID) return this.pods.get(podUID)?.ref ?? this.api?.ref(podUID);
    if (!pod) return undefined;
    for (const o of this.pods.values()) if (o.ref.pod === pod) return o.ref;
    for (const p of this.api?.all() ?? []) {
      const ref = this.api?.ref(p.metadata.uid ?? '');
      if (ref?.pod === pod) return ref;
    }
    return undefined;
  }

  getPods(): AdmittedPod[] {
    return [...this.uids()].flatMap((uid) => this.shown(uid) ?? []);
  }

  getPod(namespace: string, name: string): AdmittedPod | undefined {
    for (const o of this.pods.values())
      if (o.who.namespace === namespace && o.who.name === name) return this.shown(o.who.uid);
    const a = this.api?.all().find((p) => p.metadata.namespace === namespace && p.metadata.name === name);
    return a && this.shown(a.metadata.uid ?? '');
  }
}
