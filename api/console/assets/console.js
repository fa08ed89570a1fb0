// The console's only script. Pages work without it; it does four things.
//
// Going back to a form already sent: every rendered form carries its own form key (the third part
// of its `_csrf` token), and the console acts once per key (api/console/form-once.ts). Pages are
// never cached (`no-store`), so going back fetches the form's page anew, with new keys; this keeps
// the key each form was sent with in its history entry's state and, when the entry is shown again
// by going back or forward, puts it back into the same form's new token. Sending the form again
// then answers its first result instead of acting a second time. A form is known by its action
// and its hidden fields (two buttons of one list are two forms).
//
// It keeps a page whose records are still changing (a delivery on its way) up to date: the page
// carries a fingerprint of its data in `data-live`; this asks for the page's page object (the
// X-App-Page header) and reloads the page once the data's fingerprint differs (FNV-1a of its JSON
// text, as api/console/pages/view-helpers.ts computes it). It asks every second for the first
// minute, then less and less often, at most once a minute from about four minutes on, for as
// long as the page is open: a delivery waiting hours for its next attempt is still shown when it
// moves, and a tab left open costs one small request a minute. It stops only when an answer says
// waiting will not help (a 4xx: the session ended, the record is gone or out of reach); the
// page's sentence then says since when it shows no longer the latest, and to reload.
//
// It makes a field's suggestions complete the entry being typed in a comma-separated list (an
// input marked `data-suggest-each`, such as the events field of the endpoint forms): a browser
// matches a `<datalist>` against the whole value and a pick replaces it, so the plain choices only
// help with the first entry. On input, the options become what is typed up to and including the
// last comma, a space (or the spaces typed after that comma) and each choice not already listed
// before it, so the browser's own suggestions complete the last entry and keep the earlier ones.
//
// On the error page of a refused form, its "Go back" link goes back in the history (when the form's
// page is the entry before): the browser shows the form again with what it held, where following
// the link would open the form's page empty.
'use strict';
(() => {
  const KEPT = 'formKeys';
  const identity = (form) =>
    [form.getAttribute('action') || '']
      .concat(
        Array.from(form.querySelectorAll('input[type="hidden"]'))
          .filter((input) => input.name !== '_csrf')
          .map((input) => `${input.name}=${input.value}`),
      )
      .join('\n');
  const tokenField = (form) => form.querySelector('input[name="_csrf"]');
  const state = () => (history.state && typeof history.state === 'object' ? history.state : {});
  const navigation = performance.getEntriesByType('navigation')[0];
  if (navigation && navigation.type === 'back_forward') {
    const kept = state()[KEPT] || {};
    for (const form of Array.from(document.forms)) {
      const field = tokenField(form);
      const key = kept[identity(form)];
      const parts = field ? field.value.split('.') : [];
      if (key && parts.length === 3) field.value = `${parts[0]}.${parts[1]}.${key}`;
    }
  }
  document.addEventListener('submit', (event) => {
    const form = event.target;
    const field = form instanceof HTMLFormElement ? tokenField(form) : null;
    const key = field ? field.value.split('.')[2] : undefined;
    if (!key) return;
    const current = state();
    history.replaceState({ ...current, [KEPT]: { ...(current[KEPT] || {}), [identity(form)]: key } }, '');
  });
})();
(() => {
  const live = document.querySelector('[data-live]');
  if (!live) return;
  const shown = live.getAttribute('data-live');
  const fingerprint = (value) => {
    const text = JSON.stringify(value === undefined ? null : value);
    let hash = 0x811c9dc5;
    for (let index = 0; index < text.length; index += 1) {
      hash ^= text.charCodeAt(index);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    return hash.toString(16).padStart(8, '0');
  };
  const FIRST_GAP = 1000;
  const QUICK_FOR = 60_000;
  const LONGEST_GAP = 60_000;
  const started = Date.now();
  let gap = FIRST_GAP;
  const pad = (n) => String(n).padStart(2, '0');
  const stop = () => {
    const now = new Date();
    live.textContent = `Stopped updating at ${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())} UTC: reload the page to see the latest.`;
  };
  async function poll() {
    try {
      const answer = await fetch(window.location.href, {
        headers: { 'X-App-Page': 'true', Accept: 'application/json' },
        credentials: 'same-origin',
      });
      if (answer.status >= 400 && answer.status < 500) {
        stop();
        return;
      }
      if (answer.ok && fingerprint((await answer.json()).data) !== shown) {
        window.location.reload();
        return;
      }
    } catch {
      // offline for a moment, or an answer that is no page object: try again at the next tick
    }
    if (Date.now() - started >= QUICK_FOR) gap = Math.min(LONGEST_GAP, Math.ceil(gap * 1.5));
    window.setTimeout(poll, gap);
  }
  window.setTimeout(poll, gap);
})();
(() => {
  for (const input of Array.from(document.querySelectorAll('input[list][data-suggest-each]'))) {
    const list = input.list;
    if (!list) continue;
    const choices = Array.from(list.options, (option) => option.value);
    let shownFor = '';
    const suggest = () => {
      const value = input.value;
      const cut = value.lastIndexOf(',');
      const typed = value.slice(cut + 1);
      // the earlier entries as typed, with the spaces after the last comma (one when nothing follows it)
      const head = cut < 0 ? '' : value.slice(0, cut + 1) + (typed === '' ? ' ' : /^\s*/.exec(typed)[0]);
      if (head === shownFor) return;
      shownFor = head;
      const listed = new Set(
        value
          .slice(0, Math.max(cut, 0))
          .split(',')
          .map((entry) => entry.trim()),
      );
      list.replaceChildren(
        ...choices
          .filter((choice) => !listed.has(choice))
          .map((choice) => {
            const option = document.createElement('option');
            option.value = head + choice;
            return option;
          }),
      );
    };
    input.addEventListener('input', suggest);
    suggest();
  }
})();
(() => {
  const link = document.querySelector('[data-history-back] a');
  if (!link || history.length < 2 || document.referrer !== link.href) return;
  link.addEventListener('click', (event) => {
    event.preventDefault();
    history.back();
  });
})();
