/**
 * Database blips for the tests of a web process under load (test/api/*-blip.test.ts): connections
 * reset (an RST) or cut (the port closed for a moment) through a resetting proxy, each timed on
 * what the process sends, while the test's clients keep asking.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from './poll.ts';
import type { startResettingProxy } from './postgres-fronts.ts';

/**
 * One blip: the reset comes once the process has sent `marker` (`delayMs` later: some of its
 * statements answered, the others in flight), or the cut (`cut`: until the clients have had their
 * answers); `again` is a blip of its own, timed on what the process sends next (its connections
 * opening again, a new connection's first statement).
 */
export interface Blip {
  marker: string;
  delayMs?: number;
  cut?: true;
  again?: Blip;
}

type ResettingProxy = Awaited<ReturnType<typeof startResettingProxy>>;

/** Resolves once the process has sent `marker` through `proxy`; rejects past `withinMs`. */
export async function sentThrough(proxy: ResettingProxy, marker: string, withinMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    proxy.sent(marker),
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`nothing sent ${marker}`)), withinMs))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Runs `blips` one after another through `proxy`, then stops the load (`stop`), and answers what
 * went wrong with the blips themselves (nothing, or why they could not go on). `answered` counts
 * the answers the `clients` have had so far: a cut lasts until each has had one, and after each
 * blip (and its `again`) the next waits until each has had two more, so every blip finds them
 * asking. The blips stop when the process sends nothing a blip waits for, or the clients stop
 * being answered, within `answerMs` (twice it for the answers).
 */
export async function runBlips(
  proxy: ResettingProxy,
  blips: readonly Blip[],
  load: { answered: () => number; clients: number; answerMs: number; stop: () => Promise<void> },
): Promise<string[]> {
  const { answered, clients, answerMs } = load;
  try {
    for (let blip: Blip | undefined, next = 0; next < blips.length || blip; ) {
      blip ??= blips[next++] as Blip;
      const { marker, delayMs = 0, cut, again } = blip;
      await sentThrough(proxy, marker, answerMs);
      if (delayMs > 0) await sleep(delayMs);
      const before = answered();
      const following = again && sentThrough(proxy, again.marker, answerMs);
      if (cut) {
        await proxy.cut();
        await eventually(() => answered() >= before + clients, answerMs * 2, 'answers while cut');
        await proxy.restore();
      } else proxy.reset();
      if (following) {
        await following;
        blip = again;
        continue;
      }
      blip = undefined;
      // the clients go on past the blip before the next one
      await eventually(() => answered() >= before + 2 * clients, answerMs * 2, 'answers after the blip');
    }
    return [];
  } catch (error) {
    return [String(error)];
  } finally {
    await load.stop();
  }
}
