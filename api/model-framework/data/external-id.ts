import { randomBytes } from 'node:crypto';

/**
 * The public identifier every model record carries (`externalId`): 128 random bits as
 * base64url, 22 characters. Opaque (it says nothing about the row or its age), unguessable,
 * and safe in a URL path segment without escaping.
 */
export const newExternalId = (): string => randomBytes(16).toString('base64url');

/** What an external id in a path may look like; anything else cannot name a record (404). */
export const EXTERNAL_ID = /^[A-Za-z0-9_-]{1,64}$/;
