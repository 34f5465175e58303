/** The pod-state reducer of core (browser-safe), in the one place the web app imports it from. */
export {
  type BackoffState,
  type Basis,
  type ContainerSnapshot,
  type ContainerStateInfo,
  type Fact,
  type PodSnapshot,
  PodStateReducer,
  podTrouble,
  provenance,
  type Source,
  type Trouble,
  toContainerStatus,
} from '@syncscope/core/pod-state';
