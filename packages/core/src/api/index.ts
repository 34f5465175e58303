/**
 * The Kubernetes API surface shared by server, web and tests (`@syncscope/core/api`): the core/v1 types
 * and the kubectl printer. Browser-safe: no Node imports.
 */

export * from './kubectl.ts';
export * from './v1.ts';
