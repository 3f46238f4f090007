/** SANDBOX_METRICS_TOKEN on a real `serve` process: /metrics closed to all but the token, which no answer or log line shows. */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/files.js';
import { serversPerTest } from '../support/processes.js';

afterAll(removeTempDirs);

const TOKEN = 'scrape-only-Q8v1-9f3k2m';

describe('serve with SANDBOX_METRICS_TOKEN', () => {
  const servers = serversPerTest();

  it('answers /metrics to the bearer of the token only, and never writes the token out', async () => {
    const server = await servers.start(path.join(tempDir(), 'sandbox.json'), { SANDBOX_METRICS_TOKEN: TOKEN });
    const refused = await fetch(`${server.url}/metrics`, { headers: { Authorization: 'Bearer not-it' } });
    expect(refused.status).toBe(401);
    const body = (await refused.json()) as { code: number; description: string };
    expect(body.code).toBe(401);
    expect(body.description).toMatch(/Authorization: Bearer <token>/);
    const served = await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(served.status).toBe(200);
    const text = await served.text();
    expect(text).toContain('payreq_http_requests_total{method="GET",route="/metrics",status="401"} 1');
    expect(text).toContain('process_cpu_seconds_total');
    expect(server.output()).not.toContain(TOKEN);
  });
});
