import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findScenarioFiles } from '../../src/scenarios/load.js';
import { replay } from '../../src/scenarios/replay.js';
import { formatFileResult } from '../../src/scenarios/report-human.js';
import { scenarioJsonSchema } from '../../src/scenarios/schema.js';

const SCENARIOS = fileURLToPath(new URL('../../scenarios/', import.meta.url));

describe('the shipped scenarios', () => {
  it('every shipped scenario passes against an in-process sandbox', async () => {
    const report = await replay([SCENARIOS]);
    const failures = report.files.filter((f) => f.status === 'failed').map((f) => formatFileResult(f));
    expect(failures, failures.join('\n\n')).toEqual([]);
    expect(report.passed).toBe(report.files.length);
  });

  it('cover the flows the README promises, one file each', async () => {
    const names = (await findScenarioFiles([SCENARIOS])).map((f) => f.slice(SCENARIOS.length));
    expect(names).toEqual(
      expect.arrayContaining([
        'happy-path-p-w-a.yaml',
        'paid-then-settled.yaml',
        'create-with-payer-goes-to-w.yaml',
        'cancel-from-p.yaml',
        'cancel-from-w.yaml',
        'void-after-payment.yaml',
        'void-after-settlement-refused.yaml',
        'cancel-after-payment-refused.yaml',
        'void-before-payment-refused.yaml',
        'final-states-refuse-changes.yaml',
        'expiry-by-clock.yaml',
        'forced-expiry.yaml',
        'failure.yaml',
        'magic-payer-pays.yaml',
        'magic-payer-pays-later.yaml',
        'magic-payer-declines.yaml',
        'magic-payer-never-pays.yaml',
        'duplicate-merchant-ref-no.yaml',
        'timeout-after-commit-recovery.yaml',
        'fault-rule-timeout-recovery.yaml',
        'signature-required-and-wrong.yaml',
        'isolation-other-merchant.yaml',
        'create-bad-body.yaml',
        'create-bad-fields.yaml',
        'bad-routes-and-ids.yaml',
      ]),
    );
  });

  it('scenarios/scenario.schema.json is the JSON Schema generated from the format (npm run scenario-schema)', async () => {
    const shipped = JSON.parse(await readFile(new URL('scenario.schema.json', `file://${SCENARIOS}`), 'utf8')) as unknown;
    expect(shipped, 'scenario.schema.json is out of date: run npm run scenario-schema').toEqual(scenarioJsonSchema());
  });
});
