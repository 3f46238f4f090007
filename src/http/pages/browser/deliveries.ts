/**
 * Webhook deliveries: each with its attempts (time, status, latency, error) and the body sent;
 * resend one (the same event_id, as a receiver must deduplicate it).
 */
import type { Deliveries, Delivery, DeliveryAnswer } from './api.js';
import { el, pretty } from './dom.js';
import { control, notice, run } from './session.js';

export async function loadDeliveries(): Promise<Delivery[] | null> {
  const r = await control<Deliveries>('GET', '/webhook/deliveries?limit=200');
  return r.ok ? [...r.body.deliveries] : null;
}

function attemptsList(d: Delivery): HTMLElement {
  if (!d.attempts.length) return el('p', { class: 'sub' }, d.next_attempt_at ? 'No attempt yet; the first at ' + d.next_attempt_at + '.' : 'No attempt yet.');
  return el(
    'ol',
    { class: 'attempts' },
    d.attempts.map((a) =>
      el('li', null, el('span', { class: 'mono' }, a.at), ' ', el('span', { class: 'status-code ' + (a.status !== null && a.status < 300 ? 'ok' : 'bad') }, a.status === null ? 'no answer' : String(a.status)), ' · ' + Math.round(a.latency_ms) + ' ms', a.error ? ' · ' + a.error : ''),
    ),
  );
}

/** The deliveries as cards; `after` reloads whatever shows them once a resend is answered. */
export function deliveryList(deliveries: readonly Delivery[], message: HTMLElement, after: () => Promise<void>): HTMLElement {
  return el(
    'ul',
    { class: 'deliveries' },
    deliveries.map((d) => {
      const last = d.attempts.at(-1);
      const resend = el('button', { type: 'button', class: 'secondary small', data: { action: 'resend' }, 'aria-label': 'Resend ' + d.event_type + ' ' + d.event_id }, 'Resend');
      resend.addEventListener('click', () =>
        void run(resend, async () => {
          const r = await control<DeliveryAnswer>('POST', '/webhook/deliveries/' + encodeURIComponent(d.id) + '/replay');
          notice(message, r.code, r.body.description);
          await after();
        }),
      );
      return el(
        'li',
        { class: 'delivery', data: { delivery: d.id, eventId: d.event_id, state: d.state } },
        el(
          'div',
          { class: 'delivery-head' },
          el('strong', null, d.event_type),
          el('span', { class: 'badge ' + (d.state === 'delivered' ? 'st-A' : d.state === 'failed' ? 'st-F' : 'st-P') }, d.state),
          el('span', { class: 'sub mono' }, d.event_id),
          el('span', { class: 'sub' }, d.attempts.length + ' attempt' + (d.attempts.length === 1 ? '' : 's') + (last ? ' · last ' + (last.status ?? 'no answer') + ' in ' + Math.round(last.latency_ms) + ' ms' : '')),
          resend,
        ),
        el('details', null, el('summary', null, 'Attempts and body'), el('div', { class: 'sub' }, 'To ', el('span', { class: 'mono' }, d.url), ' · payment ', el('span', { class: 'mono' }, d.payment_id)), attemptsList(d), el('pre', { class: 'body' }, pretty(d.body))),
      );
    }),
  );
}
