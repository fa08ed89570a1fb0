/**
 * Webhook endpoints, one service for every face: each read and change takes `(deps, actor,
 * input)` and decides by the actor's role (shared/access/) before it reads anything; REST, GraphQL
 * and the console pass the caller, the CLI and the programmatic interface the operator. An
 * endpoint outside the caller's tenant scope answers exactly like one that does not exist.
 */
export { registerEndpoint, type RegisterOptions, type RegisteredEndpoint } from './register.ts';
export { listEndpoints, endpointStatuses, patternsMatching, type EndpointQuery, type EndpointStatus } from './list.ts';
export {
  showEndpoint,
  revealEndpoint,
  endpointInScope,
  headerValuesShown,
  type EndpointDetails,
  type HeaderReveal,
  type SecretInfo,
} from './show.ts';
export { updateEndpoint, disableEndpoint, enableEndpoint, type EndpointPatch } from './update.ts';
export { removeEndpoint } from './remove.ts';
export { rotateSecret, type RevealedSecret } from './secrets.ts';
export { sendTestEvent, TEST_EVENT } from './send.ts';
export { endpointsInScope } from './batch.ts';
export { maskedEndpoint, type Endpoint, type ShownEndpoint } from './store.ts';
