/** The engine's own kubelet-format log: `@syncscope/core/klog`. See writer.ts for the contract. */
export { goQuote, type KlogValue, klogHeader, klogLine, kvText } from './format.ts';
export {
  formatPodRef,
  type KlogWriterOptions,
  kubeletLogLines,
  kubeletSyncError,
  SOURCES,
} from './writer.ts';
