/**
 * The request log: the journal as a table, newest first, filtered by status and path; each entry
 * opens to its bodies at the table's full width, with string_to_sign and the hint of a 401.
 */
import type { Journal, JournalEntry } from './api.js';
import { byId, el, fieldError, pretty } from './dom.js';
import { control, notice, run } from './session.js';

const ui = {
  form: byId('journal-filter', HTMLFormElement),
  status: byId('journal-status', HTMLInputElement),
  path: byId('journal-path', HTMLInputElement),
  reads: byId('journal-reads', HTMLInputElement),
  clear: byId('clear-journal', HTMLButtonElement),
  list: byId('journal', HTMLElement),
  count: byId('journal-count', HTMLElement),
  message: byId('journal-message', HTMLElement),
};

/** A field of a 401 answer that helps with a signature, if the answer has it. */
function answerText(e: JournalEntry, field: 'string_to_sign' | 'signature_hint'): string | null {
  const body = e.response_body;
  if (typeof body !== 'object' || body === null || !(field in body)) return null;
  const value = (body as Record<string, unknown>)[field];
  return value === null || value === undefined ? null : pretty(value);
}

function entryDetail(e: JournalEntry): HTMLDivElement {
  const parts: HTMLElement[] = [];
  const block = (title: string, text: string, kind: string) => el('div', { class: 'body-block', data: { body: kind } }, el('h4', null, title), el('pre', null, text));
  parts.push(block('Request body', e.request_body === null || e.request_body === undefined ? '(none)' : pretty(e.request_body), 'request'));
  parts.push(block('Response body', e.response_body === null || e.response_body === undefined ? '(none)' : pretty(e.response_body), 'response'));
  const signed = answerText(e, 'string_to_sign');
  if (signed) parts.push(block('string_to_sign (the string the sandbox signed, salt masked)', signed, 'string-to-sign'));
  const hint = answerText(e, 'signature_hint');
  if (hint) parts.push(block('Hint', hint, 'hint'));
  if (e.warnings.length) parts.push(block('Warnings', e.warnings.join('\n'), 'warnings'));
  if (e.note) parts.push(block('Note', e.note, 'note'));
  return el('div', { class: 'entry-detail' }, parts);
}

function statusClass(e: JournalEntry): string {
  return 'status-code ' + (typeof e.status === 'number' && e.status < 400 ? 'ok' : 'bad');
}

/** The journal rows of `entries`; each row's button opens its bodies in a row of the table's width below it. */
export function journalTable(entries: readonly JournalEntry[]): HTMLDivElement {
  const head = el('thead', null, el('tr', null, ['Time', 'Method', 'Path', 'Status', 'Latency', 'Fault', ''].map((h) => el('th', { scope: 'col' }, h))));
  const body = el('tbody', null);
  for (const e of entries) {
    const detailId = 'entry-' + e.id + '-' + Math.random().toString(36).slice(2, 8);
    const row = el(
      'tr',
      { data: { entry: String(e.id), status: String(e.status) } },
      el('td', { class: 'sub when' }, e.at ? new Date(e.at).toLocaleTimeString() : ''),
      el('td', { class: 'mono' }, e.method),
      el('td', { class: 'mono path' }, e.path, e.alias ? el('div', { class: 'sub' }, 'without /openapi') : ''),
      el('td', null, el('span', { class: statusClass(e) }, String(e.status))),
      el('td', { class: 'num' }, e.latency_ms + ' ms'),
      el('td', { class: 'mono' }, e.fault ?? ''),
      el('td', null),
    );
    const toggle = el('button', { type: 'button', class: 'secondary small', 'aria-expanded': 'false', 'aria-controls': detailId, data: { action: 'bodies' } }, 'Bodies');
    toggle.addEventListener('click', () => {
      const openRow = document.getElementById(detailId);
      if (openRow) {
        openRow.remove();
        toggle.setAttribute('aria-expanded', 'false');
        return;
      }
      row.after(el('tr', { class: 'detail-row', id: detailId }, el('td', { colspan: 7 }, entryDetail(e))));
      toggle.setAttribute('aria-expanded', 'true');
    });
    row.lastElementChild?.append(toggle);
    body.append(row);
  }
  return el('div', { class: 'table-wrap' }, el('table', { class: 'journal-table' }, head, body));
}

// The dashboard's own reads would bury the integrator's calls; a checkbox shows them.
const isDashboardRead = (e: JournalEntry): boolean => e.method === 'GET' && /\/sandbox\/v1\//.test(e.path);

function filterQuery(): string | null {
  const parts = ['limit=200'];
  const status = ui.status.value.trim();
  if (status && !/^[1-5][0-9][0-9]$/.test(status)) {
    fieldError(ui.status, 'A status is three digits from 100 to 599, such as 401.');
    return null;
  }
  fieldError(ui.status, null);
  if (status) parts.push('status=' + status);
  const path = ui.path.value.trim();
  if (path) parts.push('path=' + encodeURIComponent(path));
  return parts.join('&');
}

/** Loads overlap (a refresh, a filter); only the newest may draw, or an older answer could undo a filter. */
let generation = 0;

export async function loadJournal(): Promise<void> {
  const q = filterQuery();
  if (q === null) return;
  const mine = ++generation;
  const r = await control<Journal>('GET', '/requests?' + q);
  if (mine !== generation) return;
  ui.clear.hidden = !r.ok;
  if (!r.ok) {
    ui.list.replaceChildren(el('p', { class: 'hint' }, 'The request journal is not available on this sandbox (GET /sandbox/v1/requests answered ' + r.code + ': ' + r.body.description + ').'));
    return;
  }
  const all = r.body.requests;
  const entries = ui.reads.checked ? all : all.filter((e) => !isDashboardRead(e));
  ui.count.textContent = entries.length === all.length ? String(all.length) : entries.length + ' of ' + all.length;
  if (!entries.length) {
    const filtered = ui.status.value.trim() || ui.path.value.trim();
    const text = filtered ? 'No request matches this filter: clear the status or path.' : all.length ? 'Only reads of the sandbox control API so far: tick "show GETs of /sandbox/v1" to see them.' : 'No requests journaled yet: call the API (or create a payment above) and each request shows here.';
    ui.list.replaceChildren(el('p', { class: 'empty' }, text));
    return;
  }
  ui.list.replaceChildren(journalTable(entries));
}

export function initJournal(): void {
  ui.form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void loadJournal();
  });
  ui.reads.addEventListener('change', () => void loadJournal());
  ui.clear.addEventListener('click', () =>
    void run(ui.list, async () => {
      const r = await control<{ description: string }>('DELETE', '/requests');
      notice(ui.message, r.code, r.body.description);
      await loadJournal();
    }),
  );
}
