/**
 * A dead delivery retried from its console page is pending again, and every face says so
 * (shared/webhooks/deliveries/record.ts `inCurrentSeries`): its page shows when and by whom it was
 * queued again, no last error until the new run makes an attempt, and the earlier run's attempts,
 * their "attempts exhausted" among them, as history under their own heading; its endpoint's
 * deliveries say the same; the REST answer's `lastError` is null until then, with `queuedAgainAt`,
 * `queuedAgainBy` and `attemptsBefore`. Once the new run's attempt fails, its error is the last
 * error.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { showDelivery } from '../../../../shared/webhooks/deliveries/show.ts';
import { registerEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { emitEvent } from '../../../../shared/webhooks/events/index.ts';
import { eventually } from '../../../helpers/poll.ts';
import { depsOf } from '../../../shared/webhooks/fixtures.ts';
import { startReceiver, type Receiver } from '../../../worker/delivery/receiver.ts';
import { Browser } from '../../accounts/helpers.ts';
import { startConsole } from '../harness.ts';

const FLAGS = { webhooks: { allowHttp: true, allowPrivate: true } };
const app = await startConsole(FLAGS);
const webhooks = depsOf(app.db, FLAGS);
/** What the receiver does: answer 500, or hold the request until the test answers it. */
let mode: 'fail' | 'hold' = 'fail';
let held: ServerResponse | undefined;
let heldLatch: () => void = () => undefined;
let receiver: Receiver;
let admin: Browser;
let adminId = '';

before(async () => {
  receiver = await startReceiver((_req, res) => {
    if (mode === 'hold') {
      held = res;
      heldLatch();
      return;
    }
    res.statusCode = 500;
    res.end('down');
  });
  const user = await app.user({ role: 'admin', owner: null });
  adminId = user.id;
  admin = new Browser(app.base);
  await admin.signIn(user.email);
});

after(async () => {
  held?.destroy();
  await receiver.close();
  await app.close();
});

/** The text of element `id` of `html`, tags dropped and spaces folded. */
const textOf = (html: string, id: string): string =>
  (new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</dd>`).exec(html)?.[1] ?? '')
    .replace(/<[^>]+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();

describe('a retried delivery shows its new run, and the earlier one as history', () => {
  it('pending again: no last error, queued again by whom, the earlier run apart; then the new attempt', async () => {
    const endpoint = await registerEndpoint(webhooks, OPERATOR, { url: `${receiver.origin}/hook`, events: ['*'] });
    const emitted = await emitEvent(webhooks, OPERATOR, { type: 'order.created', data: { n: 1 } });
    const id = emitted.deliveries.find((d) => d.endpointId === endpoint.id)?.id ?? '';
    await eventually(
      async () => (await showDelivery(webhooks, OPERATOR, id)).status === 'dead',
      20_000,
      'both attempts failed',
    );
    const dead = await admin.request('GET', `/deliveries/${id}`, { html: true });
    assert.match(textOf(dead.text, 'last-error'), /^attempts exhausted \(2 of 2\)/, 'dead: why is its last error');

    // the new run's attempt is held by the receiver: the delivery stays on its way, no attempt recorded
    mode = 'hold';
    const reached = new Promise<void>((resolve) => {
      heldLatch = resolve;
    });
    const csrf = /action="\/deliveries\/[^"]+\/retry"[\s\S]*?name="_csrf" value="([^"]+)"/.exec(dead.text)?.[1];
    assert.ok(csrf, 'the dead delivery offers Retry');
    const retried = await admin.request('POST', `/deliveries/${id}/retry`, { form: { _csrf: csrf } });
    assert.equal(retried.status, 303, retried.text);
    await reached;

    const page = await admin.request('GET', `/deliveries/${id}`, { html: true });
    assert.equal(page.status, 200, page.text);
    assert.equal(textOf(page.text, 'last-error'), 'none in this run yet', 'the earlier run’s error is not its state');
    assert.match(
      textOf(page.text, 'queued-again'),
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC by you, a new run of attempts$/,
    );
    assert.match(page.text, /<dd>2 \(0 in this run, 2 in earlier runs\)<\/dd>/);
    const [now, earlier] = page.text.split('<h2>Attempts of earlier runs</h2>');
    assert.ok(earlier, 'the earlier run has its own heading');
    assert.match(now, /<h2>Attempts of this run<\/h2>\s*<p>No attempt since it was queued again\.<\/p>/);
    assert.doesNotMatch(now, /attempts exhausted/, 'nothing above the history says attempts ran out');
    assert.match(earlier, /history, not its state/);
    assert.match(
      earlier,
      /Attempt 2<\/strong>[\s\S]*attempts exhausted \(2 of 2\)/,
      'the earlier errors stay, as history',
    );

    const listed = await admin.request('GET', `/endpoints/${endpoint.id}`, { html: true });
    const row = new RegExp(`<tr>\\s*<td><a href="/deliveries/${id}">[\\s\\S]*?</tr>`).exec(listed.text)?.[0] ?? '';
    assert.match(row, /none yet: queued again at \d{4}-/, "its endpoint's deliveries say the same");
    assert.doesNotMatch(row, /attempts exhausted/);

    const rest = await admin.request('GET', `/api/v1/deliveries/${id}`);
    assert.equal(rest.status, 200, rest.text);
    assert.equal(rest.body.lastError, null);
    assert.equal(rest.body.lastStatus, null);
    assert.equal(rest.body.queuedAgainBy, adminId);
    assert.equal(rest.body.attemptsBefore, 2);
    assert.ok(Date.parse(rest.body.queuedAgainAt) > 0, 'queuedAgainAt is a time');

    // the held attempt fails: its error is the new run's last error
    held?.writeHead(500).end('down again');
    held = undefined;
    await eventually(
      async () => (await showDelivery(webhooks, OPERATOR, id)).attempts === 3,
      20_000,
      'the new run’s first attempt is recorded',
    );
    const later = await admin.request('GET', `/deliveries/${id}`, { html: true });
    assert.match(textOf(later.text, 'last-error'), /500/);
    assert.doesNotMatch(textOf(later.text, 'last-error'), /attempts exhausted \(2 of 2\)/);
    assert.match(
      later.text,
      /<h2>Attempts of this run<\/h2>\s*<ol class="timeline">\s*<li[^>]*><strong>Attempt 3<\/strong>/,
    );
  });
});
