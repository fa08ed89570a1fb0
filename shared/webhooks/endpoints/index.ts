/**
 * Webhook endpoints, one service for every face: each function takes `(deps, scope, input)`;
 * REST and GraphQL pass the caller's tenant scope, the CLI and the programmatic interface
 * `ALL_TENANTS` (tenant-scope.ts). An endpoint outside the scope answers exactly like one that
 * does not exist.
 */
export { registerEndpoint, type RegisterOptions, type RegisteredEndpoint } from './register.ts';
export { listEndpoints, endpointStatuses, patternsMatching, type EndpointQuery, type EndpointStatus } from './list.ts';
export { showEndpoint, endpointInScope, type EndpointDetails, type SecretInfo } from './show.ts';
export { updateEndpoint, disableEndpoint, enableEndpoint, type EndpointPatch } from './update.ts';
export { removeEndpoint } from './remove.ts';
export { rotateSecret, type RevealedSecret } from './secrets.ts';
export { sendTestEvent, TEST_EVENT } from './send.ts';
export { endpointsInScope } from './batch.ts';
export type { Endpoint } from './store.ts';
