/**
 * Bytes that work under way in this process holds, counted by key (a client, a tenant), with a
 * bound: what keeps one caller's requests at once from filling the process's memory, where a
 * rate limit (requests per minute) does not see how much each one holds, nor for how long.
 */
export interface BytesInFlight {
  /**
   * Counts `bytes` for `key` and answers `release`, which gives them back (once); without
   * `release`, nothing counted, when the key already holds some and `bytes` more would pass
   * `limit`. `before`: what the key held. A key's first work is always let through: a bound on
   * one piece of work alone is the caller's own (a body limit, a fan-out limit).
   */
  hold(key: string, bytes: number, limit: number): { before: number; release?: () => void };
}

export function bytesInFlight(): BytesInFlight {
  const held = new Map<string, number>();
  return {
    hold(key, bytes, limit) {
      const before = held.get(key) ?? 0;
      if (before > 0 && before + bytes > limit) return { before };
      held.set(key, before + bytes);
      let holding = true;
      const release = () => {
        if (!holding) return;
        holding = false;
        const left = (held.get(key) ?? bytes) - bytes;
        if (left > 0) held.set(key, left);
        else held.delete(key);
      };
      return { release, before };
    },
  };
}
