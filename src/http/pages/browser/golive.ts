/** The sandbox clock (advance it) and the go-live readiness report, with its JUnit file to download. */
import type { AdvanceClock, Clock, Readiness, ReadinessCheck } from './api.js';
import { byId, el, fieldError } from './dom.js';
import { CONTROL, control, fetchWithKey, notice, run } from './session.js';

const ui = {
  panel: byId('golive-panel', HTMLElement),
  clock: byId('clock', HTMLElement),
  advanceForm: byId('advance-form', HTMLFormElement),
  seconds: byId('advance-seconds', HTMLInputElement),
  readiness: byId('readiness', HTMLElement),
  verdict: byId('readiness-verdict', HTMLElement),
  again: byId('refresh-readiness', HTMLButtonElement),
  junit: byId('readiness-junit', HTMLButtonElement),
  message: byId('golive-message', HTMLElement),
};

const CHECK_MARK: Readonly<Record<ReadinessCheck['status'], string>> = { pass: 'PASS', fail: 'FAIL', not_tried: 'NOT TRIED' };
let changed: () => Promise<void> = async () => {};

export function showClock(body: Clock): void {
  const offset = body.offset_seconds ? ' (+' + body.offset_seconds + ' s)' : '';
  ui.clock.textContent = 'Sandbox time ' + new Date(body.now * 1000).toLocaleString() + offset;
}

export async function loadClock(): Promise<void> {
  const r = await control<Clock>('GET', '/clock');
  if (r.ok) showClock(r.body);
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
    c.advice ? el('div', { class: 'sub advice' }, c.advice) : '',
    c.evidence.length ? el('details', null, el('summary', null, 'Evidence (' + c.evidence.length + ')'), el('ul', { class: 'evidence' }, c.evidence.map((e) => el('li', { class: 'mono' }, e)))) : '',
  );
}

export async function loadReadiness(): Promise<void> {
  const r = await control<Readiness>('GET', '/readiness');
  if (!r.ok) {
    ui.readiness.replaceChildren(el('p', { class: 'hint' }, 'The readiness report is not available (' + r.code + ': ' + r.body.description + ').'));
    return;
  }
  ui.verdict.textContent = r.body.ready ? 'ready' : 'not ready';
  ui.readiness.replaceChildren(el('ul', { class: 'checks' }, r.body.checks.map(checkItem)));
}

/** The JUnit file is fetched with the key header (a plain link could not carry it), then saved from memory. */
async function downloadJunit(): Promise<void> {
  let res: Response;
  try {
    res = await fetchWithKey(CONTROL + '/readiness/junit');
  } catch {
    return notice(ui.message, 0, 'The sandbox did not answer.');
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { description?: string };
    return notice(ui.message, res.status, body.description ?? 'The JUnit file could not be had.');
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? 'readiness.xml';
  const link = el('a', { href: URL.createObjectURL(await res.blob()), download: name });
  document.body.append(link);
  link.click();
  link.remove();
  notice(ui.message, 200, 'Saved ' + name + ': one testcase per check, for your CI.');
}

export function initGoLive(onChange: () => Promise<void>): void {
  changed = onChange;
  ui.advanceForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const seconds = Number(ui.seconds.value);
    const bad = !Number.isInteger(seconds) || seconds < 1;
    fieldError(ui.seconds, bad ? 'A whole number of seconds, 1 or more.' : null);
    if (bad) return;
    const body: AdvanceClock = { seconds };
    void run(ui.panel, async () => {
      const r = await control<{ description: string }>('POST', '/clock/advance', body);
      notice(ui.message, r.code, r.body.description);
      await Promise.all([loadClock(), changed()]);
    });
  });
  ui.again.addEventListener('click', () => void run(ui.panel, loadReadiness));
  ui.junit.addEventListener('click', () => void run(ui.panel, downloadJunit));
}
