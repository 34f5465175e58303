/** The kubelet log importer: `@syncscope/core/kubelet-log`. See parser.ts for the contract. */

export { type ImportSummary, KubeletLogParser, type ParserOptions } from './parser.ts';
export { looksReversed, readLinesBackward } from './reverse.ts';
export { checkZone } from './time.ts';
