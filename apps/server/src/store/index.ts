/**
 * The store's public surface for the HTTP routes: the errors a refused write raises and how they answer, and
 * the journal's pod filter. Everything else in store/ is the store's own.
 */
export { podFilter } from './segment-index.ts';
export { StoreWriteError, storeFailureStatus } from './write-error.ts';
