/** Every shipped scenario, replayed over HTTP through a validating proxy: the document and the traffic agree. */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { replay } from '../../src/scenarios/replay.js';
import { formatFileResult } from '../../src/scenarios/report-human.js';
import { describeViolations } from '../support/validating-proxy.js';
import { proxiedSandbox } from './support.js';

const SCENARIOS = fileURLToPath(new URL('../../scenarios/', import.meta.url));

describe('the shipped scenarios through a validating proxy', () => {
  const live = proxiedSandbox({ config: { timeoutHoldMs: 5_000 } });

  it('pass, and no request or answer differs from the document', async () => {
    const report = await replay([SCENARIOS], { baseUrl: live.proxy.url });
    const failures = report.files.filter((f) => f.status === 'failed').map((f) => formatFileResult(f));
    expect(failures, failures.join('\n\n')).toEqual([]);
    expect(live.proxy.exchanges.length).toBeGreaterThan(150);
    expect(live.proxy.violations, describeViolations(live.proxy.violations)).toEqual([]);
  }, 90_000); // 37 files through the proxy: seconds on a quiet machine, more on a busy one
});
