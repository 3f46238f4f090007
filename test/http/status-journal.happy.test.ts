/**
 * A status read's journal entry refers to the status text of its payment version (SPEC 20): an
 * integration polling one payment journals every read, with its whole answer, while the store
 * keeps that answer once per version.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { DEMO_PAYEE, call, control, createPayment, expectEnvelope, manualClock } from '../support/http.js';

afterAll(removeTempDirs);

/** How many times `marker` is written in the files of `dir`. */
function written(dir: string, marker: string): number {
  return readdirSync(dir).reduce((n, f) => n + readFileSync(path.join(dir, f), 'utf8').split(marker).length - 1, 0);
}

describe('a polled payment in the journal', () => {
  it('shows every read with its whole answer, while the file store writes the answer of each version once', async () => {
    const dir = tempDir();
    const sandbox = await createSandbox({ store: 'file', dataFile: path.join(dir, 'sandbox.json'), clock: manualClock().clock, scheduler: false });
    try {
      const { payment_id: id } = await createPayment(sandbox);
      const answers: string[] = [];
      for (let i = 0; i < 5; i++) answers.push((await call(sandbox, 'GET', `/openapi/v1/payments/payment/${id}`)).text);
      expectEnvelope(await control(sandbox, id, 'pickup'), 200);
      for (let i = 0; i < 3; i++) answers.push((await call(sandbox, 'GET', `/openapi/v1/payments/payment/${id}`)).text);

      // Read through the service: a read of GET /sandbox/v1/requests would be journaled with every body in its own answer.
      const entries = await sandbox.services.journal.list(DEMO_PAYEE, { method: 'GET', path: id, limit: 20 });
      expect(entries.map((e) => e.responseBody)).toEqual(answers.reverse());
      expect(new Set(entries.map((e) => e.answerRef))).toEqual(new Set([`${id}@1`, `${id}@2`]));

      await sandbox.close();
      // The description of each version's answer is in the files once: with the first read that answered it.
      expect(written(dir, `"description\\":\\"Payment ${id} is P`)).toBe(1);
      expect(written(dir, `"description\\":\\"Payment ${id} is W`)).toBe(1);
    } finally {
      await sandbox.close();
    }
  });
});
