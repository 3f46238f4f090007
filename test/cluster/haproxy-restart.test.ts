/**
 * SPEC 19, issue 17: behind Debian's HAProxy running examples/haproxy/haproxy.cfg (only its ports
 * changed), checking /readyz, a rolling restart of two `serve` processes on one
 * PostgreSQL database, started as the hosting docs say (the drain delay left to its default),
 * under keep-alive load fail no request, and every acknowledged create reads back.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/databases.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { killQuietly } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';
import { until } from '../support/until.js';
import { debianBinary, drops, enroll, expectAllReadable, expectInReadme, failed, freePorts, instanceEnv, keepAliveLoad, runBalancer, startInstance, templated } from './rolling-restart.js';

const instances: { name: 'a' | 'b'; port: number; dataFile: string; server?: ServerProcess }[] = [];
let haproxy: ReturnType<typeof runBalancer> | undefined;
let env: Record<string, string>;
let base: string;
let statsUrl: string;

beforeAll(async () => {
  const bin = debianBinary('haproxy');
  // As the hosting docs start them: no SANDBOX_DRAIN_DELAY_MS, so SANDBOX_TRUST_PROXY=1 gives the 5 s default on loopback too.
  const { SANDBOX_DRAIN_DELAY_MS: _delay, ...asDocumented } = instanceEnv(await freshDatabase());
  env = asDocumented;
  const dir = tempDir('payreq-haproxy-');
  const [front, a, b, stats] = await freePorts(4);
  const config = templated('haproxy/haproxy.cfg', { 8080: front!, 8081: a!, 8082: b!, 8404: stats! }, dir);
  instances.push({ name: 'a', port: a!, dataFile: path.join(dir, 'a.json') }, { name: 'b', port: b!, dataFile: path.join(dir, 'b.json') });
  // Started together on purpose: the schema migration runs under an advisory lock.
  await Promise.all(instances.map(async (i) => (i.server = await startInstance(i.dataFile, i.port, env))));
  haproxy = runBalancer(bin, ['-db', '-f', config]);
  base = `http://127.0.0.1:${front}`;
  statsUrl = `http://127.0.0.1:${stats}/stats;csv`;
  for (const i of instances) await until(async () => ((await statusOf(i.name)) === 'UP' ? true : undefined), `HAProxy to see ${i.name} UP\n${haproxy.output()}`, 10_000, 100);
}, 60_000);

afterAll(async () => {
  await haproxy?.stop();
  for (const i of instances) killQuietly(i.server);
  removeTempDirs();
});

/** HAProxy's state of one instance: UP, DOWN, or a transition such as "UP 1/2". */
async function statusOf(name: string): Promise<string | undefined> {
  const csv = await fetch(statsUrl).then((r) => r.text(), () => '');
  const lines = csv.split('\n');
  const columns = (lines[0] ?? '').replace(/^# /, '').split(',');
  const row = lines.map((l) => l.split(',')).find((cells) => cells[0] === 'instances' && cells[1] === name);
  return row?.[columns.indexOf('status')];
}

describe('HAProxy (examples/haproxy/haproxy.cfg) in front of two instances on PostgreSQL', () => {
  it('is the configuration docs/hosting.md shows', () => expectInReadme('haproxy/haproxy.cfg'));

  it('restarting each instance in turn under keep-alive creates and status reads fail no request, and lose no create', async () => {
    // 16 clients: with SANDBOX_DRAIN_DELAY_MS=0 (the old stop) this load saw reset connections through HAProxy.
    const load = keepAliveLoad(base, { prefix: 'haproxy', clients: 16, maxMs: 100_000 });
    await until(() => (load.outcomes.length >= 200 ? true : undefined), 'the load to get going', 10_000);
    const drains: { name: string; downAfterMs: number; exitAfterMs: number }[] = [];
    for (const i of instances) {
      const signalledAt = Date.now();
      i.server!.child.kill('SIGTERM');
      // /readyz answers 503 at once, so HAProxy takes the instance out while it still serves.
      await until(async () => ((await statusOf(i.name)) === 'DOWN' ? true : undefined), `HAProxy to see ${i.name} DOWN`, 10_000, 50);
      const downAfterMs = Date.now() - signalledAt;
      const { code } = await i.server!.exited;
      drains.push({ name: i.name, downAfterMs, exitAfterMs: Date.now() - signalledAt });
      expect(code, i.server!.output()).toBe(0);
      expect(i.server!.output()).toContain('SIGTERM: draining: /readyz answers 503; still serving for 5 s');
      i.server = await startInstance(i.dataFile, i.port, env);
      await until(async () => ((await statusOf(i.name)) === 'UP' ? true : undefined), `HAProxy to see ${i.name} UP again`, 10_000, 50);
      // Both instances take load before the next one stops.
      await new Promise((r) => setTimeout(r, 1000));
    }
    const outcomes = await load.stop();

    expect(drains).toHaveLength(2);
    for (const d of drains) {
      // Out of HAProxy's rotation well before the default 5 s delay was over and the instance stopped accepting.
      expect(d.downAfterMs, JSON.stringify(d)).toBeLessThan(3000);
      expect(d.exitAfterMs, JSON.stringify(d)).toBeGreaterThanOrEqual(5000);
    }
    const creates = outcomes.filter((o) => o.kind === 'create');
    expect(creates.length).toBeGreaterThan(300);
    expect(outcomes.filter((o) => o.kind === 'read').length).toBeGreaterThan(300);
    expect(failed(outcomes)).toEqual([]);
    await expectAllReadable(base, outcomes);
  }, 120_000);

  it("one merchant's burst of dropped connections takes no instance out, and another merchant's requests all succeed", async () => {
    const dropper = await enroll(base, 'Dropping Shop');
    const load = keepAliveLoad(base, { prefix: 'haproxy-drops', clients: 4 });
    await until(() => (load.outcomes.length >= 50 ? true : undefined), 'the load to get going', 10_000);
    const dropped = await drops(base, dropper, 6);
    // Two checks' time: an instance HAProxy took out would be DOWN by now.
    await new Promise((r) => setTimeout(r, 2500));
    const states = [await statusOf('a'), await statusOf('b')];
    const outcomes = await load.stop();
    expect(dropped).toEqual([502, 502, 502, 502, 502, 502]);
    expect(states).toEqual(['UP', 'UP']);
    expect(failed(outcomes)).toEqual([]);
    expect(outcomes.length).toBeGreaterThan(100);
  }, 30_000);
});
