/**
 * The dashboard's script, inlined by dashboard-page.tsx into the frame it renders. The key lives in
 * this tab's sessionStorage and travels only as the Service-Api-Key header of same-origin fetches;
 * every value from the API reaches the page as text nodes, never as HTML. It compiles to one plain
 * script (tsconfig.browser.json), hence one file: imports are of types only, as nothing bundles them.
 */
import type {
  AdvanceClock,
  Clock,
  ControlAction,
  ControlActionBody,
  Envelope,
  Journal,
  JournalEntry,
  PaymentHistory,
  PaymentEvent,
  PaymentPage,
  PaymentStatus,
  PublicAction,
  PublicActionBody,
  Readiness,
  ReadinessCheck,
  SandboxPayment,
} from './api.js';

// The script shares the page's global scope with nothing: everything lives in this function.
(() => {
  'use strict';

  type Method = 'GET' | 'POST' | 'DELETE';
  type RowAction = ControlAction | PublicAction | 'events';
  /** What an API call came back with: the route's 200 body, or the envelope of whatever else. */
  type Reply<T> = { readonly ok: true; readonly code: number; readonly body: T } | { readonly ok: false; readonly code: number; readonly body: Envelope };

  /** The frame's element of this id, of the kind the script uses it as (the server renders them all). */
  function byId<T extends HTMLElement>(id: string, kind: { new (): T; prototype: T }): T {
    const node = document.getElementById(id);
    if (!(node instanceof kind)) throw new Error(`The dashboard frame has no ${kind.name} #${id}.`);
    return node;
  }

  /** Where the frame says the API is (behind a proxy, under a path prefix). */
  function apiRoot(name: 'controlRoot' | 'publicRoot'): string {
    const at = byId('dashboard', HTMLElement).dataset[name];
    if (at === undefined) throw new Error(`The dashboard frame has no data-${name === 'controlRoot' ? 'control' : 'public'}-root.`);
    return at;
  }

  const CONTROL = apiRoot('controlRoot');
  const PUBLIC = apiRoot('publicRoot');
  const ui = {
    login: byId('login', HTMLElement),
    loginError: byId('login-error', HTMLElement),
    keyForm: byId('key-form', HTMLFormElement),
    keyInput: byId('key-input', HTMLInputElement),
    app: byId('app', HTMLElement),
    who: byId('who', HTMLElement),
    merchant: byId('merchant', HTMLElement),
    clock: byId('clock', HTMLElement),
    forget: byId('forget', HTMLButtonElement),
    message: byId('message', HTMLElement),
    refresh: byId('refresh', HTMLButtonElement),
    autoRefresh: byId('auto-refresh', HTMLInputElement),
    settleAll: byId('settle-all', HTMLButtonElement),
    advance: byId('advance', HTMLButtonElement),
    advanceSeconds: byId('advance-seconds', HTMLInputElement),
    reset: byId('reset', HTMLButtonElement),
    statusFilter: byId('status-filter', HTMLSelectElement),
    paymentsCount: byId('payments-count', HTMLElement),
    paymentsBody: byId('payments-body', HTMLTableSectionElement),
    readiness: byId('readiness', HTMLElement),
    readinessVerdict: byId('readiness-verdict', HTMLElement),
    refreshReadiness: byId('refresh-readiness', HTMLButtonElement),
    journal: byId('journal', HTMLElement),
    journalCount: byId('journal-count', HTMLElement),
    journalReads: byId('journal-reads', HTMLInputElement),
    refreshJournal: byId('refresh-journal', HTMLButtonElement),
    clearJournal: byId('clear-journal', HTMLButtonElement),
  };

  const STORE_KEY = 'payreq-sandbox.api-key';
  const MEANING: Readonly<Record<PaymentStatus, string>> = { P: 'pending', W: 'waiting for payment', A: 'paid', F: 'failed', E: 'expired', V: 'voided' };
  const CHECK_MARK: Readonly<Record<ReadinessCheck['status'], string>> = { pass: 'PASS', fail: 'FAIL', not_tried: 'NOT TRIED' };
  const REASON = 'from the sandbox dashboard';
  let key = '';
  try {
    key = sessionStorage.getItem(STORE_KEY) ?? '';
  } catch {
    key = '';
  }
  let busy = false;
  let timer: number | null = null;

  type Child = Node | string | number | false | null | undefined;
  /** The attributes the script sets, so a misspelt one fails the typecheck. */
  type Attributes = { readonly [name in 'role' | 'type' | 'title' | 'href' | 'target' | 'rel' | 'src' | 'alt']?: string } & {
    readonly [name in 'width' | 'height' | 'colspan']?: number;
  } & { readonly loading?: 'lazy' | 'eager' };
  type Props = Attributes & { readonly class?: string; readonly data?: Readonly<Record<string, string>>; readonly onclick?: () => void };

  function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props | null, ...children: (Child | readonly Child[])[]): HTMLElementTagNameMap[K] {
    const node = document.createElement(tag);
    const { class: className, data, onclick, ...attributes }: Props = props ?? {};
    if (className) node.className = className;
    if (data) Object.assign(node.dataset, data);
    if (onclick) node.addEventListener('click', onclick);
    for (const [name, value] of Object.entries(attributes)) {
      if (value !== undefined) node.setAttribute(name, String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  const isHttpUrl = (u: string): boolean => /^https?:\/\//.test(u);
  const money = (n: number): string => n.toFixed(2);
  const when = (unix: number): string => new Date(unix * 1000).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
  const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

  /** A same-origin call with the key as a header; a 401 from the control API forgets the key. */
  async function call<T>(method: Method, url: string, body?: object): Promise<Reply<T>> {
    const headers: Record<string, string> = { 'Service-Api-Key': key };
    const init: RequestInit = { method, headers, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await fetch(url, init);
    } catch (err) {
      return { ok: false, code: 0, body: { code: 0, description: 'The sandbox did not answer (' + messageOf(err) + ').' } };
    }
    let data: unknown;
    try {
      data = await res.json();
    } catch {
      data = { code: res.status, description: 'The sandbox answered HTTP ' + res.status + ' without a JSON body.' };
    }
    const fields: { code?: unknown; description?: unknown } = typeof data === 'object' && data !== null ? data : {};
    const code = typeof fields.code === 'number' ? fields.code : res.status;
    const description = typeof fields.description === 'string' ? fields.description : '';
    if (code === 401 && url.startsWith(CONTROL)) forget('The sandbox did not accept this key (401): ' + description);
    // The body is the contract's: the server's own tests hold it to that.
    if (code === 200) return { ok: true, code, body: data as T };
    return { ok: false, code, body: { code, description } };
  }
  const control = <T>(method: Method, path: string, body?: object): Promise<Reply<T>> => call<T>(method, CONTROL + path, body);

  function notice(code: number, text: string): void {
    const tone = code >= 200 && code < 300 ? 'info' : 'error';
    ui.message.replaceChildren(el('div', { class: 'notice ' + tone, role: 'status', data: { code: String(code) } }, el('span', { class: 'status-code' }, String(code)), ' ', text));
  }

  function showLogin(message: string): void {
    ui.app.hidden = true;
    ui.who.hidden = true;
    ui.login.hidden = false;
    ui.loginError.replaceChildren(message ? el('div', { class: 'notice error', role: 'alert' }, message) : '');
    ui.keyInput.focus();
  }

  function forget(message: string): void {
    key = '';
    try {
      sessionStorage.removeItem(STORE_KEY);
    } catch {}
    if (timer !== null) {
      window.clearInterval(timer);
      timer = null;
      ui.autoRefresh.checked = false;
    }
    showLogin(message);
  }

  async function open(candidate: string): Promise<void> {
    key = candidate;
    const clock = await control<Clock>('GET', '/clock');
    if (!clock.ok) {
      if (clock.code !== 401) forget('The sandbox answered ' + clock.code + ': ' + clock.body.description);
      return;
    }
    try {
      sessionStorage.setItem(STORE_KEY, key);
    } catch {}
    ui.login.hidden = true;
    ui.app.hidden = false;
    ui.who.hidden = false;
    showClock(clock.body);
    await refresh();
  }

  function showClock(body: Clock): void {
    const offset = body.offset_seconds ? ' (+' + body.offset_seconds + ' s)' : '';
    ui.clock.textContent = 'Sandbox time ' + new Date(body.now * 1000).toLocaleString() + offset;
  }

  async function loadClock(): Promise<void> {
    const r = await control<Clock>('GET', '/clock');
    if (r.ok) showClock(r.body);
  }

  async function refresh(): Promise<void> {
    await Promise.all([loadPayments(), loadJournal(), loadReadiness(), loadClock()]);
  }

  const PAYMENT_ACTIONS: readonly (readonly [RowAction, string])[] = [
    ['pickup', 'Pickup'], ['pay', 'Pay'], ['fail', 'Fail'], ['expire', 'Expire'], ['settle', 'Settle'],
    ['cancel', 'Cancel'], ['void', 'Void'], ['events', 'History'],
  ];

  /** Cancel and void go through the public API, as an integration would call them; the rest are control actions. */
  function paymentRequest(action: ControlAction | PublicAction, id: string): { url: string; body: ControlActionBody | PublicActionBody } {
    const at = encodeURIComponent(id);
    if (action === 'cancel') return { url: PUBLIC + '/payments/payment/' + at + '/cancel', body: { reason: 'cancelled ' + REASON } };
    if (action === 'void') return { url: PUBLIC + '/payments/payment/' + at + '/void', body: { reason: 'voided ' + REASON } };
    return { url: CONTROL + '/payments/' + at + '/' + action, body: {} };
  }

  /** One action at a time: every button of the app waits until it is done. */
  async function run(work: () => Promise<void>): Promise<void> {
    if (busy) return;
    busy = true;
    const buttons = () => ui.app.querySelectorAll('button');
    buttons().forEach((b) => {
      b.disabled = true;
    });
    try {
      await work();
    } finally {
      busy = false;
      buttons().forEach((b) => {
        b.disabled = false;
      });
    }
  }

  async function paymentAction(action: RowAction, id: string, row: HTMLTableRowElement): Promise<void> {
    if (action === 'events') return toggleEvents(id, row);
    const { url, body } = paymentRequest(action, id);
    const r = await call<Envelope>('POST', url, body);
    notice(r.code, r.body.description);
    await refresh();
  }

  function eventItem(e: PaymentEvent): HTMLLIElement {
    return el('li', null, el('span', { class: 'mono' }, e.at_iso || when(e.at)), ' ', e.type, ': ', (e.from ?? '∅') + ' → ' + e.to, ' by ' + e.actor, e.reason ? ' (' + e.reason + ')' : '');
  }

  async function toggleEvents(id: string, row: HTMLTableRowElement): Promise<void> {
    const next = row.nextElementSibling;
    if (next && next.classList.contains('events-row')) {
      next.remove();
      return;
    }
    const r = await control<PaymentHistory>('GET', '/payments/' + encodeURIComponent(id) + '/events');
    const cell = el('td', { colspan: 7 });
    if (!r.ok) cell.append(el('div', { class: 'notice error' }, r.code + ' ' + r.body.description));
    else cell.append(el('ol', { class: 'events' }, r.body.events.map(eventItem)));
    row.after(el('tr', { class: 'events-row' }, cell));
  }

  function statusBadge(p: SandboxPayment): HTMLSpanElement {
    const settled = p.payment_status === 'A' && p.settled ? ', settled' : '';
    return el('span', { class: 'badge st-' + p.payment_status, data: { status: p.payment_status } }, el('span', { class: 'code' }, p.payment_status), MEANING[p.payment_status] + settled);
  }

  function paymentRow(p: SandboxPayment): HTMLTableRowElement {
    const qr = p.qr_data;
    const thumb = isHttpUrl(qr.image_url) ? el('img', { src: qr.image_url, alt: 'QR of ' + p.payment_code, loading: 'lazy', width: 56, height: 56 }) : '';
    const link = isHttpUrl(qr.checkout_url) ? el('a', { href: qr.checkout_url, target: '_blank', rel: 'noopener noreferrer', title: 'Open the payer page' }, thumb) : thumb;
    const actionsCell = el('td', null);
    const row = el(
      'tr',
      { data: { paymentId: p.payment_id } },
      el('td', { class: 'qr' }, link),
      el('td', null, el('div', { class: 'ref' }, p.merchant_ref_no), el('div', { class: 'sub mono' }, p.payment_id)),
      el('td', { class: 'num' }, money(p.original_amount) + ' ' + p.original_currency_code),
      el('td', null, statusBadge(p)),
      el('td', null, when(p.created_at)),
      el('td', null, p.payer ? p.payer.name : el('span', { class: 'sub' }, 'none yet')),
      actionsCell,
    );
    const actions = PAYMENT_ACTIONS.map(([action, label]) =>
      el('button', { type: 'button', data: { action }, onclick: () => void run(() => paymentAction(action, p.payment_id, row)) }, label),
    );
    actionsCell.append(el('div', { class: 'row-actions' }, actions));
    return row;
  }

  async function loadPayments(): Promise<void> {
    const status = ui.statusFilter.value;
    const r = await control<PaymentPage>('GET', '/payments?limit=50' + (status ? '&status=' + encodeURIComponent(status) : ''));
    if (!r.ok) {
      ui.paymentsBody.replaceChildren(el('tr', null, el('td', { colspan: 7, class: 'empty' }, r.code + ' ' + r.body.description)));
      return;
    }
    const { payments, total } = r.body;
    ui.paymentsCount.textContent = total > payments.length ? payments.length + ' newest of ' + total : String(payments.length);
    const payee = payments[0]?.payee;
    ui.merchant.textContent = payee ? payee.name + ' · ' + payee.id : '';
    const empty = el('tr', null, el('td', { colspan: 7, class: 'empty' }, 'No payments yet: create one with POST /openapi/v1/payments/payment and it shows here.'));
    ui.paymentsBody.replaceChildren(...(payments.length ? payments.map(paymentRow) : [empty]));
  }

  function checkItem(c: ReadinessCheck): HTMLLIElement {
    const tone = c.status === 'pass' ? 'ok' : c.status === 'fail' ? 'bad' : '';
    return el(
      'li',
      { class: 'check ' + c.status, data: { check: c.id, status: c.status } },
      el('span', { class: 'status-code ' + tone }, CHECK_MARK[c.status]),
      ' ',
      el('strong', null, c.id),
      c.required ? '' : el('span', { class: 'sub' }, ' optional'),
      ' ',
      c.title,
      c.advice ? el('div', { class: 'sub' }, c.advice) : '',
    );
  }

  async function loadReadiness(): Promise<void> {
    const r = await control<Readiness>('GET', '/readiness');
    if (!r.ok) {
      ui.readiness.replaceChildren(el('p', { class: 'hint' }, 'The readiness report is not available (' + r.code + ').'));
      return;
    }
    ui.readinessVerdict.textContent = r.body.ready ? 'ready' : 'not ready';
    ui.readiness.replaceChildren(el('ul', { class: 'checks' }, r.body.checks.map(checkItem)));
  }

  const pretty = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

  function journalRow(e: JournalEntry): HTMLTableRowElement {
    const good = typeof e.status === 'number' && e.status < 400;
    const bodies: HTMLDivElement[] = [];
    if (e.request_body !== null && e.request_body !== undefined) bodies.push(el('div', null, el('strong', null, 'Request'), el('pre', null, pretty(e.request_body))));
    if (e.response_body !== null && e.response_body !== undefined) bodies.push(el('div', null, el('strong', null, 'Response'), el('pre', null, pretty(e.response_body))));
    if (e.warnings.length) bodies.push(el('div', null, el('strong', null, 'Warnings: '), e.warnings.join('; ')));
    return el(
      'tr',
      null,
      el('td', { class: 'sub' }, e.at ? new Date(e.at).toLocaleTimeString() : ''),
      el('td', { class: 'mono' }, e.method),
      el('td', { class: 'mono' }, e.path, e.alias ? el('div', { class: 'sub' }, 'without /openapi') : ''),
      el('td', null, el('span', { class: 'status-code ' + (good ? 'ok' : 'bad') }, String(e.status))),
      el('td', { class: 'num' }, e.latency_ms + ' ms'),
      el('td', null, e.fault ?? ''),
      el('td', null, bodies.length ? el('details', null, el('summary', null, 'bodies'), bodies) : ''),
    );
  }

  // The dashboard's own reads would bury the integrator's calls; a checkbox shows them.
  const isDashboardRead = (e: JournalEntry): boolean => e.method === 'GET' && /\/sandbox\/v1\//.test(e.path);

  async function loadJournal(): Promise<void> {
    const r = await control<Journal>('GET', '/requests?limit=100');
    ui.clearJournal.hidden = !r.ok;
    if (!r.ok) {
      ui.journal.replaceChildren(el('p', { class: 'hint' }, 'The request journal is not available on this sandbox (GET /sandbox/v1/requests answered ' + r.code + ').'));
      return;
    }
    const all = r.body.requests;
    const entries = ui.journalReads.checked ? all : all.filter((e) => !isDashboardRead(e));
    ui.journalCount.textContent = entries.length === all.length ? String(all.length) : entries.length + ' of ' + all.length;
    if (!entries.length) {
      ui.journal.replaceChildren(el('p', { class: 'empty' }, all.length ? 'Only reads of the sandbox control API so far.' : 'No requests journaled yet.'));
      return;
    }
    const head = el('thead', null, el('tr', null, ['Time', 'Method', 'Path', 'Status', 'Latency', 'Fault', ''].map((h) => el('th', null, h))));
    ui.journal.replaceChildren(el('div', { class: 'table-wrap' }, el('table', null, head, el('tbody', null, entries.map(journalRow)))));
  }

  /** A control POST or DELETE whose answer is shown as a notice, then the panels it may change are reloaded. */
  function act(method: Method, path: string, body: object | undefined, reload: () => Promise<void>): () => Promise<void> {
    return async () => {
      const r = await control<Envelope>(method, path, body);
      notice(r.code, r.body.description);
      await reload();
    };
  }

  ui.keyForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const candidate = ui.keyInput.value.trim();
    ui.keyInput.value = '';
    if (candidate) void open(candidate);
  });
  ui.forget.addEventListener('click', () => forget(''));
  ui.refresh.addEventListener('click', () => void run(refresh));
  ui.statusFilter.addEventListener('change', () => void loadPayments());
  ui.journalReads.addEventListener('change', () => void loadJournal());
  ui.refreshJournal.addEventListener('click', () => void run(loadJournal));
  ui.refreshReadiness.addEventListener('click', () => void run(loadReadiness));
  ui.clearJournal.addEventListener('click', () => void run(act('DELETE', '/requests', undefined, loadJournal)));
  ui.settleAll.addEventListener('click', () => void run(act('POST', '/settle', {}, refresh)));
  ui.advance.addEventListener('click', () => {
    const body: AdvanceClock = { seconds: Number(ui.advanceSeconds.value) };
    void run(act('POST', '/clock/advance', body, refresh));
  });
  ui.reset.addEventListener('click', () => {
    if (!window.confirm('Erase every payment of this merchant and reset its sandbox clock? The key stays.')) return;
    void run(act('POST', '/reset', {}, refresh));
  });
  ui.autoRefresh.addEventListener('change', () => {
    if (timer !== null) {
      window.clearInterval(timer);
      timer = null;
    }
    if (ui.autoRefresh.checked) {
      timer = window.setInterval(() => {
        if (!busy && key) void refresh();
      }, 5000);
    }
  });

  if (key) void open(key);
  else showLogin('');
})();
