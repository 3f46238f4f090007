/**
 * compose.yaml against what it runs: the tested HAProxy configuration (mounted from examples/haproxy,
 * never copied) must reach the two instances where compose starts them, and the instances the
 * PostgreSQL compose starts. No image registry is reachable here to run it whole; the image the
 * instances run is built and run by image.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Service {
  build?: string;
  image?: string;
  network_mode?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  stop_grace_period?: string;
}

const compose = parse(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const services = Object.entries(compose.services);
const instances = services.filter(([, s]) => s.build === '.');
const haproxy = compose.services.haproxy!;
const postgres = compose.services.postgres!;

describe('compose.yaml', () => {
  it('runs PostgreSQL, HAProxy and at least two instances of the image built here, on the host network', () => {
    expect(postgres.image).toMatch(/^postgres:/);
    expect(haproxy.image).toMatch(/^haproxy:/);
    expect(instances.length).toBeGreaterThanOrEqual(2);
    for (const [name, service] of services) expect(service.network_mode, name).toBe('host');
  });

  it('HAProxy runs the tested configuration from examples/haproxy, mounted read-only', () => {
    const mount = haproxy.volumes?.find((v) => v.endsWith(':/usr/local/etc/haproxy/haproxy.cfg:ro'));
    expect(mount).toBe('./examples/haproxy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro');
    expect(existsSync(path.join(ROOT, 'examples/haproxy/haproxy.cfg'))).toBe(true);
  });

  it("every server of that configuration is an instance's HOST:PORT, and every instance is one of its servers", () => {
    const cfg = readFileSync(path.join(ROOT, 'examples/haproxy/haproxy.cfg'), 'utf8');
    const servers = [...cfg.matchAll(/^\s*server\s+\S+\s+(\S+?:\d+)/gm)].map((m) => m[1]).sort();
    const addresses = instances.map(([, s]) => `${s.environment?.HOST}:${s.environment?.PORT}`).sort();
    expect(addresses).toEqual(servers);
    // The configuration checks /readyz, which SIGTERM turns 503 for the drain delay the instances keep.
    expect(cfg).toMatch(/http-check send meth GET uri \/readyz/);
  });

  it('the instances share the PostgreSQL compose starts, trust HAProxy as one proxy, and drain before a SIGKILL', () => {
    const pg = postgres.environment!;
    const port = /port=(\d+)/.exec(postgres.command?.join(' ') ?? '')?.[1] ?? '5432';
    for (const [name, s] of instances) {
      const env = s.environment!;
      expect(env.SANDBOX_STORE, name).toBe(`postgres://${pg.POSTGRES_USER}:${pg.POSTGRES_PASSWORD}@127.0.0.1:${port}/${pg.POSTGRES_DB}`);
      expect(env.SANDBOX_TRUST_PROXY, name).toBe('1');
      // The drain delay plus the 10 s for answers in flight fit in the grace compose gives before SIGKILL.
      expect(Number(env.SANDBOX_DRAIN_DELAY_MS) + 10_000, name).toBeLessThanOrEqual(Number.parseInt(s.stop_grace_period ?? '10', 10) * 1000);
    }
  });
});
