/**
 * Webhook events, one service for every face: emit for a tenant scope, and the retained events
 * listed and shown with their delivery counts. `emit` is the engine's own entry (the
 * programmatic interface's `webhooks.emit`).
 */
export { emit, emitEvent, sendToEndpoint, type EmitOptions, type EmitResult } from './emit.ts';
export { listEvents, type EventQuery } from './list.ts';
export { showEvent } from './show.ts';
export { eventNotFound, type EventRecord } from './record.ts';
export type { Delivery } from './enqueue.ts';
