/**
 * The dashboard's inline script (plain browser JavaScript, sent as is). The key lives in this tab's
 * sessionStorage and travels only as the Service-Api-Key header of same-origin fetches; every value
 * from the API reaches the page as text nodes, never as HTML.
 */
export const DASHBOARD_SCRIPT = String.raw`
(() => {
  'use strict';
  const root = document.getElementById('dashboard');
  const CONTROL = root.dataset.controlRoot;
  const PUBLIC = root.dataset.publicRoot;
  const STORE_KEY = 'payreq-sandbox.api-key';
  const $ = (id) => document.getElementById(id);
  const MEANING = { P: 'pending', W: 'waiting for payment', A: 'paid', F: 'failed', E: 'expired', V: 'voided' };
  const REASON = 'from the sandbox dashboard';
  let key = '';
  try { key = sessionStorage.getItem(STORE_KEY) || ''; } catch (e) { key = ''; }
  let busy = false;
  let timer = null;

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(props || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === 'class') node.className = value;
      else if (name === 'data') Object.assign(node.dataset, value);
      else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  const isHttpUrl = (u) => typeof u === 'string' && /^https?:\/\//.test(u);
  const money = (n) => (typeof n === 'number' ? n.toFixed(2) : String(n));
  const when = (unix) => (typeof unix === 'number' ? new Date(unix * 1000).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' }) : '');

  async function call(method, url, body) {
    const headers = { 'Service-Api-Key': key };
    const init = { method, headers, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' };
    if (body !== undefined) { headers['Content-Type'] = 'application/json'; init.body = JSON.stringify(body); }
    let res;
    try { res = await fetch(url, init); } catch (err) {
      return { code: 0, body: { code: 0, description: 'The sandbox did not answer (' + err.message + ').' } };
    }
    let data;
    try { data = await res.json(); } catch (err) { data = { code: res.status, description: 'The sandbox answered HTTP ' + res.status + ' without a JSON body.' }; }
    const code = typeof data.code === 'number' ? data.code : res.status;
    if (code === 401 && url.startsWith(CONTROL)) forget('The sandbox did not accept this key (401): ' + (data.description || '') );
    return { code, body: data };
  }
  const control = (method, path, body) => call(method, CONTROL + path, body);

  function notice(code, text) {
    const box = $('message');
    box.replaceChildren(el('div', { class: 'notice ' + (code >= 200 && code < 300 ? 'info' : 'error'), role: 'status', data: { code: String(code) } },
      el('span', { class: 'status-code' }, String(code)), ' ', text));
  }

  function showLogin(message) {
    $('app').hidden = true; $('who').hidden = true; $('login').hidden = false;
    $('login-error').replaceChildren(message ? el('div', { class: 'notice error', role: 'alert' }, message) : '');
    $('key-input').focus();
  }

  function forget(message) {
    key = '';
    try { sessionStorage.removeItem(STORE_KEY); } catch (e) {}
    if (timer) { clearInterval(timer); timer = null; $('auto-refresh').checked = false; }
    showLogin(message);
  }

  async function open(candidate) {
    key = candidate;
    const clock = await control('GET', '/clock');
    if (clock.code !== 200) { if (clock.code !== 401) forget('The sandbox answered ' + clock.code + ': ' + clock.body.description); return; }
    try { sessionStorage.setItem(STORE_KEY, key); } catch (e) {}
    $('login').hidden = true; $('app').hidden = false; $('who').hidden = false;
    showClock(clock.body);
    await refresh();
  }

  function showClock(body) {
    const offset = body.offset_seconds ? ' (+' + body.offset_seconds + ' s)' : '';
    $('clock').textContent = 'Sandbox time ' + new Date(body.now * 1000).toLocaleString() + offset;
  }

  async function refresh() {
    await Promise.all([loadPayments(), loadJournal(), loadReadiness(), control('GET', '/clock').then((r) => r.code === 200 && showClock(r.body))]);
  }

  const PAYMENT_ACTIONS = [
    ['pickup', 'Pickup'], ['pay', 'Pay'], ['fail', 'Fail'], ['expire', 'Expire'], ['settle', 'Settle'],
    ['cancel', 'Cancel'], ['void', 'Void'], ['events', 'History'],
  ];

  function paymentRequest(action, id) {
    const at = encodeURIComponent(id);
    if (action === 'cancel') return ['POST', PUBLIC + '/payments/payment/' + at + '/cancel', { reason: 'cancelled ' + REASON }];
    if (action === 'void') return ['POST', PUBLIC + '/payments/payment/' + at + '/void', { reason: 'voided ' + REASON }];
    return ['POST', CONTROL + '/payments/' + at + '/' + action, {}];
  }

  async function run(work) {
    if (busy) return;
    busy = true;
    const all = document.querySelectorAll('#app button');
    all.forEach((b) => { b.disabled = true; });
    try { await work(); } finally {
      busy = false;
      document.querySelectorAll('#app button').forEach((b) => { b.disabled = false; });
    }
  }

  async function paymentAction(action, id, row) {
    if (action === 'events') return toggleEvents(id, row);
    const [method, url, body] = paymentRequest(action, id);
    const r = await call(method, url, body);
    notice(r.code, r.body.description || '');
    await refresh();
  }

  async function toggleEvents(id, row) {
    const next = row.nextElementSibling;
    if (next && next.classList.contains('events-row')) { next.remove(); return; }
    const r = await control('GET', '/payments/' + encodeURIComponent(id) + '/events');
    const cell = el('td', { colspan: 7 });
    if (r.code !== 200) cell.append(el('div', { class: 'notice error' }, r.code + ' ' + r.body.description));
    else cell.append(el('ol', { class: 'events' }, (r.body.events || []).map((e) =>
      el('li', null, el('span', { class: 'mono' }, e.at_iso || when(e.at)), ' ', e.type, ': ', (e.from || '∅') + ' → ' + e.to,
        ' by ' + e.actor, e.reason ? ' (' + e.reason + ')' : ''))));
    row.after(el('tr', { class: 'events-row' }, cell));
  }

  function statusBadge(p) {
    const settled = p.payment_status === 'A' && p.settled ? ', settled' : '';
    return el('span', { class: 'badge st-' + p.payment_status, data: { status: p.payment_status } },
      el('span', { class: 'code' }, p.payment_status), (MEANING[p.payment_status] || '') + settled);
  }

  function paymentRow(p) {
    const qr = p.qr_data || {};
    const thumb = isHttpUrl(qr.image_url) ? el('img', { src: qr.image_url, alt: 'QR of ' + p.payment_code, loading: 'lazy', width: 56, height: 56 }) : '';
    const row = el('tr', { data: { paymentId: p.payment_id } },
      el('td', { class: 'qr' }, isHttpUrl(qr.checkout_url) ? el('a', { href: qr.checkout_url, target: '_blank', rel: 'noopener noreferrer', title: 'Open the payer page' }, thumb) : thumb),
      el('td', null, el('div', { class: 'ref' }, p.merchant_ref_no), el('div', { class: 'sub mono' }, p.payment_id)),
      el('td', { class: 'num' }, money(p.original_amount) + ' ' + p.original_currency_code),
      el('td', null, statusBadge(p)),
      el('td', null, when(p.created_at)),
      el('td', null, p.payer ? p.payer.name : el('span', { class: 'sub' }, 'none yet')),
      el('td', null));
    const actions = el('div', { class: 'row-actions' }, PAYMENT_ACTIONS.map(([action, label]) =>
      el('button', { type: 'button', data: { action }, onclick: () => run(() => paymentAction(action, p.payment_id, row)) }, label)));
    row.lastChild.append(actions);
    return row;
  }

  async function loadPayments() {
    const status = $('status-filter').value;
    const r = await control('GET', '/payments?limit=50' + (status ? '&status=' + encodeURIComponent(status) : ''));
    const body = $('payments-body');
    if (r.code !== 200) { body.replaceChildren(el('tr', null, el('td', { colspan: 7, class: 'empty' }, r.code + ' ' + r.body.description))); return; }
    const items = r.body.payments || [];
    $('payments-count').textContent = r.body.total > items.length ? items.length + ' newest of ' + r.body.total : String(items.length);
    const payee = items[0] && items[0].payee;
    $('merchant').textContent = payee ? payee.name + ' · ' + payee.id : '';
    body.replaceChildren(...(items.length ? items.map(paymentRow)
      : [el('tr', null, el('td', { colspan: 7, class: 'empty' }, 'No payments yet: create one with POST /openapi/v1/payments/payment and it shows here.'))]));
  }

  const CHECK_MARK = { pass: 'PASS', fail: 'FAIL', not_tried: 'NOT TRIED' };
  async function loadReadiness() {
    const box = $('readiness');
    const r = await control('GET', '/readiness');
    if (r.code !== 200) { box.replaceChildren(el('p', { class: 'hint' }, 'The readiness report is not available (' + r.code + ').')); return; }
    $('readiness-verdict').textContent = r.body.ready ? 'ready' : 'not ready';
    box.replaceChildren(el('ul', { class: 'checks' }, (r.body.checks || []).map((c) =>
      el('li', { class: 'check ' + c.status, data: { check: c.id, status: c.status } },
        el('span', { class: 'status-code ' + (c.status === 'pass' ? 'ok' : c.status === 'fail' ? 'bad' : '') }, CHECK_MARK[c.status] || c.status),
        ' ', el('strong', null, c.id), c.required ? '' : el('span', { class: 'sub' }, ' optional'), ' ', c.title,
        c.advice ? el('div', { class: 'sub' }, c.advice) : ''))));
  }

  async function loadJournal() {
    const box = $('journal');
    const r = await control('GET', '/requests?limit=100');
    $('clear-journal').hidden = r.code !== 200;
    if (r.code !== 200) {
      box.replaceChildren(el('p', { class: 'hint' }, 'The request journal is not available on this sandbox (GET /sandbox/v1/requests answered ' + r.code + ').'));
      return;
    }
    const all = r.body.requests || [];
    // The dashboard's own reads would bury the integrator's calls; a checkbox shows them.
    const entries = $('journal-reads').checked ? all : all.filter((e) => !(e.method === 'GET' && /\/sandbox\/v1\//.test(e.path)));
    $('journal-count').textContent = entries.length === all.length ? String(all.length) : entries.length + ' of ' + all.length;
    if (!entries.length) { box.replaceChildren(el('p', { class: 'empty' }, all.length ? 'Only reads of the sandbox control API so far.' : 'No requests journaled yet.')); return; }
    const pretty = (v) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));
    box.replaceChildren(el('div', { class: 'table-wrap' }, el('table', null,
      el('thead', null, el('tr', null, ['Time', 'Method', 'Path', 'Status', 'Latency', 'Fault', ''].map((h) => el('th', null, h)))),
      el('tbody', null, entries.map((e) => {
        const status = e.status;
        const good = typeof status === 'number' && status < 400;
        const bodies = [];
        if (e.request_body !== null && e.request_body !== undefined) bodies.push(el('div', null, el('strong', null, 'Request'), el('pre', null, pretty(e.request_body))));
        if (e.response_body !== null && e.response_body !== undefined) bodies.push(el('div', null, el('strong', null, 'Response'), el('pre', null, pretty(e.response_body))));
        if (e.warnings && e.warnings.length) bodies.push(el('div', null, el('strong', null, 'Warnings: '), e.warnings.join('; ')));
        return el('tr', null,
          el('td', { class: 'sub' }, e.at ? new Date(e.at).toLocaleTimeString() : ''),
          el('td', { class: 'mono' }, e.method),
          el('td', { class: 'mono' }, e.path, e.alias ? el('div', { class: 'sub' }, 'without /openapi') : ''),
          el('td', null, el('span', { class: 'status-code ' + (good ? 'ok' : 'bad') }, String(status))),
          el('td', { class: 'num' }, typeof e.latency_ms === 'number' ? e.latency_ms + ' ms' : ''),
          el('td', null, e.fault || ''),
          el('td', null, bodies.length ? el('details', null, el('summary', null, 'bodies'), bodies) : ''));
      })))));
  }

  $('key-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const input = $('key-input');
    const candidate = input.value.trim();
    input.value = '';
    if (candidate) open(candidate);
  });
  $('forget').addEventListener('click', () => forget(''));
  $('refresh').addEventListener('click', () => run(refresh));
  $('status-filter').addEventListener('change', () => loadPayments());
  $('journal-reads').addEventListener('change', () => loadJournal());
  $('refresh-journal').addEventListener('click', () => run(loadJournal));
  $('refresh-readiness').addEventListener('click', () => run(loadReadiness));
  $('clear-journal').addEventListener('click', () => run(async () => {
    const r = await control('DELETE', '/requests');
    notice(r.code, r.body.description || '');
    await loadJournal();
  }));
  $('settle-all').addEventListener('click', () => run(async () => {
    const r = await control('POST', '/settle', {});
    notice(r.code, r.body.description || '');
    await refresh();
  }));
  $('advance').addEventListener('click', () => run(async () => {
    const r = await control('POST', '/clock/advance', { seconds: Number($('advance-seconds').value) });
    notice(r.code, r.body.description || '');
    await refresh();
  }));
  $('reset').addEventListener('click', () => {
    if (!confirm('Erase every payment of this merchant and reset its sandbox clock? The key stays.')) return;
    run(async () => {
      const r = await control('POST', '/reset', {});
      notice(r.code, r.body.description || '');
      await refresh();
    });
  });
  $('auto-refresh').addEventListener('change', (ev) => {
    if (timer) { clearInterval(timer); timer = null; }
    if (ev.currentTarget.checked) timer = setInterval(() => { if (!busy && key) refresh(); }, 5000);
  });

  if (key) open(key); else showLogin('');
})();
`;
