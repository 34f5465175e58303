/**
 * useEngineNow: the engine's clock now (ms), re-rendering the caller every `intervalMs` of wall time. It is
 * the node page's clock (useViewNow, node/connection.ts), so every page freezes alike when the stream is
 * gone: a countdown stops at the moment the server was last heard instead of running on.
 */
export { useViewNow as useEngineNow } from '../node/connection.ts';
