/** SPEC 16: the evidence of a failed check names what it failed on, as a passed one names what passed it. */
import { describe, expect, it } from 'vitest';
import { judgeReadiness } from '../../src/domain/readiness.js';

describe('readiness evidence of a failed webhook check', () => {
  it('names each delivery that was not answered 2xx, with its state and what it was answered', () => {
    const { checks } = judgeReadiness({
      requests: [],
      payments: [],
      deliveries: [
        { eventId: 'evt_down', state: 'pending', statuses: [null, 503] },
        { eventId: 'evt_new', state: 'pending', statuses: [] },
      ],
      webhookUrl: 'https://example.test/hooks',
      requireSignature: false,
    });
    const webhook = checks.find((c) => c.id === 'webhook')!;
    expect(webhook.status).toBe('fail');
    expect(webhook.evidence).toEqual(['delivery of evt_down: pending, answered nothing, 503', 'delivery of evt_new: pending, not attempted yet']);
  });
});
