/**
 * The address an attempt's request was sent to: the peer of the socket undici wrote its headers
 * on, which the pinned dispatcher (pinned-dispatcher.ts) connected only after checking it. A
 * reused keep-alive socket names the address it was opened to, which is still where the request
 * went. Read from undici's diagnostics channels: `undici:request:create` is published
 * synchronously inside `dispatcher.dispatch` when a connection can take the request (always in
 * the worker, whose agent keeps as many connections per origin as it runs attempts at once), so
 * the request object is matched to its caller without any id, and `undici:client:sendHeaders`
 * names the request's socket.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

/** Filled in as the request is sent: the remote address of its socket. */
export interface Dial {
  address?: string;
}

const dials = new WeakMap<object, Dial>();
let claimant: Dial | undefined;
let listening = false;

function onCreate(message: unknown): void {
  if (claimant === undefined) return;
  dials.set((message as { request: object }).request, claimant);
  claimant = undefined;
}

function onSendHeaders(message: unknown): void {
  const { request, socket } = message as { request: object; socket?: Socket };
  const dial = dials.get(request);
  if (dial && socket?.remoteAddress) dial.address = socket.remoteAddress;
}

/**
 * Calls `send` (which must create its undici request synchronously, as `dispatcher.dispatch`
 * does) and has `dial.address` filled in once the request's headers are written.
 */
export function trackDial<T>(dial: Dial, send: () => Promise<T>): Promise<T> {
  if (!listening) {
    subscribe('undici:request:create', onCreate);
    subscribe('undici:client:sendHeaders', onSendHeaders);
    listening = true;
  }
  claimant = dial;
  try {
    return send();
  } finally {
    claimant = undefined;
  }
}

/** `{address}` when the dial reached a socket, else nothing (for spreading into a result). */
export const dialledAddress = (dial: Dial): { address?: string } =>
  dial.address === undefined ? {} : { address: dial.address };
