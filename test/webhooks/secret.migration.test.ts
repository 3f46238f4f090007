/**
 * Stores written before webhook secrets (SPEC 18): a merchant with a URL and no secret gets one
 * at its first delivery, stored durably and alike on memory, file and PostgreSQL (two instances
 * racing keep one), signs with it, and learns it by rotating.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import type { Sandbox, SandboxOptions } from '../../src/index.js';
import { freshDatabase } from '../support/databases.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { call, DEMO_PAYEE } from '../support/http.js';
import { receiver, signedWith } from '../support/webhook-receiver.js';
import type { Received } from '../support/webhook-receiver.js';
import { until } from '../support/until.js';

afterAll(removeTempDirs);

/** Options of one store; whether it outlives a restart; how many instances may share it at once. */
const KINDS: readonly [string, () => Promise<SandboxOptions>, boolean, number][] = [
  ['memory', async () => ({ store: 'memory' }), false, 1],
  ['file', async () => ({ store: 'file', dataFile: path.join(tempDir(), 'sandbox.json') }), true, 1],
  ['postgres', async () => ({ store: 'postgres', url: await freshDatabase() }), true, 2],
];

const storedSecret = async (sandbox: Sandbox) => (await sandbox.services.store.merchant(DEMO_PAYEE))?.webhookSecret;

describe.each(KINDS)('a merchant stored with a URL and no secret: %s', (kind, optionsOf, durable, instanceCount) => {
  it('gets a secret at its first delivery, durably; its deliveries verify with it; rotating shows a new one', async () => {
    const hook = await receiver();
    const options: SandboxOptions = { ...(await optionsOf()), scheduler: false, config: { webhookRetryDelaysMs: [0] } };
    const open: Sandbox[] = [];
    const start = async () => {
      const s = await createSandbox(options);
      open.push(s);
      return s;
    };
    const testEvent = async (s: Sandbox): Promise<Received> => {
      const sent = await call(s, 'POST', '/sandbox/v1/webhook/test', { body: { type: 'payment.paid' } });
      expect(sent.status, sent.text).toBe(200);
      return until(() => hook.received.find((r) => r.body.event_id === sent.body.delivery.event_id), 'the test event');
    };
    try {
      let first = await start();
      expect((await call(first, 'PUT', '/sandbox/v1/webhook', { body: { url: hook.url } })).status).toBe(200);
      // As a store written before secrets: the URL, no secret.
      await first.services.store.updateMerchant(DEMO_PAYEE, (m) => {
        const { webhookSecret: _dropped, ...before } = m;
        return [before, null] as const;
      });
      expect(await storedSecret(first)).toBeUndefined();
      if (durable) {
        await first.close();
        open.length = 0;
        first = await start();
        expect(await storedSecret(first)).toBeUndefined();
      }

      // Two instances sending at once (on PostgreSQL) make one secret between them.
      const instances = instanceCount > 1 ? [first, await start()] : [first];
      const got = await Promise.all(instances.map(testEvent));
      const made = await storedSecret(first);
      expect(made).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
      for (const r of got) expect(signedWith(r, made!), kind).toBe(true);

      if (durable) {
        for (const s of open.splice(0)) await s.close();
        const again = await start();
        expect(await storedSecret(again)).toBe(made);
        expect(signedWith(await testEvent(again), made!)).toBe(true);
        first = again;
      }
      // It learns a secret by rotating; from then on that one signs.
      const rotated = await call(first, 'POST', '/sandbox/v1/webhook/secret');
      expect(rotated.body.secret).toMatch(/^whsec_/);
      expect(rotated.body.secret).not.toBe(made);
      const after = await testEvent(first);
      expect(signedWith(after, rotated.body.secret)).toBe(true);
      expect(signedWith(after, made!)).toBe(false);
    } finally {
      for (const s of open) await s.close();
      await hook.close();
    }
  });
});
