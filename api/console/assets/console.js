// The console's only script. Pages work without it; it only keeps a page whose
// records are still changing (a delivery on its way) up to date: the page carries a fingerprint
// of its data in `data-live`; this asks for the page's page object (the X-App-Page header) every
// second and reloads the page once the data's fingerprint differs (FNV-1a of its JSON text, as
// api/console/pages/view-helpers.ts computes it).
'use strict';
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
  let polls = 0;
  async function poll() {
    polls += 1;
    try {
      const answer = await fetch(window.location.href, {
        headers: { 'X-App-Page': 'true', Accept: 'application/json' },
        credentials: 'same-origin',
      });
      if (answer.ok && fingerprint((await answer.json()).data) !== shown) {
        window.location.reload();
        return;
      }
    } catch {
      // offline for a moment: try again at the next tick
    }
    if (polls < 600) window.setTimeout(poll, 1000);
  }
  window.setTimeout(poll, 1000);
})();
