/** The engine's own kubelet-format log: `@syncscope/core/klog`. See writer.ts for the contract. */
export { goQuote, type KlogValue, klogHeader, klogLine, kvText } from './format.ts';
export { SOURCES } from './sources.ts';
export { kubeletSyncError } from './sync-lines.ts';
export { formatPodRef, type KlogWriterOptions, kubeletLogLines } from './writer.ts';
