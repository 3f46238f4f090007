/** Fault rules: listed, added (method, path glob, fault, probability, times) and removed; the header form to copy. */
import type { FaultRule, FaultRuleBody, FaultRules } from './api.js';
import { byId, copyable, el, fieldError } from './dom.js';
import { control, notice, run } from './session.js';

const ui = {
  panel: byId('faults-panel', HTMLElement),
  list: byId('fault-rules', HTMLElement),
  form: byId('fault-form', HTMLFormElement),
  method: byId('fault-method', HTMLSelectElement),
  path: byId('fault-path', HTMLInputElement),
  fault: byId('fault-fault', HTMLInputElement),
  probability: byId('fault-probability', HTMLInputElement),
  times: byId('fault-times', HTMLInputElement),
  header: byId('fault-header', HTMLElement),
  message: byId('faults-message', HTMLElement),
};

function ruleItem(rule: FaultRule): HTMLLIElement {
  const remove = el('button', { type: 'button', class: 'danger small', data: { action: 'remove-rule' }, 'aria-label': 'Remove rule ' + rule.id }, 'Remove');
  remove.addEventListener('click', () =>
    void run(ui.panel, async () => {
      const r = await control<{ description: string }>('DELETE', '/faults/' + encodeURIComponent(rule.id));
      notice(ui.message, r.code, r.body.description);
      await loadFaults();
    }),
  );
  const times = rule.times_left === null ? 'every time' : rule.times_left + ' more time' + (rule.times_left === 1 ? '' : 's');
  return el(
    'li',
    { class: 'rule', data: { rule: rule.id } },
    el('div', null, el('strong', { class: 'mono' }, rule.match.method + ' ' + rule.match.path), ' → ', el('span', { class: 'mono' }, rule.fault)),
    el('div', { class: 'sub' }, 'probability ' + rule.probability + ' · ' + times + ' · matched ' + rule.matched + ', fired ' + rule.fired),
    el('div', { class: 'sub' }, 'As a header on one request: ', el('span', { class: 'mono' }, 'Sandbox-Fault: ' + rule.fault)),
    remove,
  );
}

export async function loadFaults(): Promise<void> {
  const r = await control<FaultRules>('GET', '/faults');
  if (!r.ok) return notice(ui.message, r.code, r.body.description);
  ui.list.replaceChildren(
    r.body.rules.length
      ? el('ul', { class: 'rules' }, r.body.rules.map(ruleItem))
      : el('p', { class: 'empty' }, 'No fault rules: add one below so matching requests of your integration get a fault without any header (or send the Sandbox-Fault header on one request).'),
  );
}

function showHeader(): void {
  const fault = ui.fault.value.trim() || 'timeout';
  ui.header.replaceChildren(copyable('Sandbox-Fault: ' + fault, 'Sandbox-Fault header'));
}

function ruleBody(): FaultRuleBody | null {
  const path = ui.path.value.trim();
  const fault = ui.fault.value.trim();
  const probability = Number(ui.probability.value);
  const times = ui.times.value.trim();
  const problems: [HTMLInputElement, string | null][] = [
    [ui.path, /^\/\S+$/.test(path) ? null : 'A public path such as /openapi/v1/payments/payment, * matching any run of characters.'],
    [ui.fault, fault ? null : 'A fault such as timeout, drop, latency=2000, error=503 or error-after-commit=500.'],
    [ui.probability, ui.probability.value.trim() !== '' && probability >= 0 && probability <= 1 ? null : 'A probability from 0 to 1.'],
    [ui.times, times === '' || /^[1-9][0-9]*$/.test(times) ? null : 'A whole number of times, 1 or more; empty for every time.'],
  ];
  for (const [field, problem] of problems) fieldError(field, problem);
  const first = problems.find(([, problem]) => problem !== null);
  if (first) {
    first[0].focus();
    return null;
  }
  const body: FaultRuleBody = { match: { method: ui.method.value, path }, fault, probability };
  if (times) body.times = Number(times);
  return body;
}

export function initFaults(): void {
  showHeader();
  ui.fault.addEventListener('input', showHeader);
  ui.form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const body = ruleBody();
    if (!body) return;
    void run(ui.panel, async () => {
      const r = await control<{ description: string }>('POST', '/faults', body);
      notice(ui.message, r.code, r.body.description);
      await loadFaults();
    });
  });
}
