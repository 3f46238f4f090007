/**
 * /openapi.json through two standard linters, as an integrator's tooling would read it:
 * Redocly's `recommended` rules and Spectral's `spectral:oas`. Neither reports an error or a
 * warning; each is shown a flawed copy first, so a linter that says nothing cannot pass.
 */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { memorySandbox } from '../../helpers.js';

let sandbox: Sandbox;
let document: string;
beforeAll(async () => {
  sandbox = await memorySandbox();
  document = await (await sandbox.fetch(new Request('http://sandbox.test/openapi.json'))).text();
});
afterAll(() => sandbox.close());

type Doc = { info: { license?: unknown }; paths: Record<string, Record<string, { description?: string }>> };

/** The document with one flaw the linter warns of (a warning, not an error). */
function flawed(alter: (doc: Doc) => void): string {
  const doc = JSON.parse(document) as Doc;
  alter(doc);
  return JSON.stringify(doc);
}

async function redocly(source: string): Promise<string[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ''})`);
}

async function spectral(source: string): Promise<string[]> {
  const linter = new spectralCore.Spectral();
  linter.setRuleset({ extends: [[oas as never, 'recommended']] });
  const results = await linter.run(new spectralCore.Document(source, spectralParsers.Json, 'openapi.json'));
  // Severity 0 is an error, 1 a warning; hints (3) and information (2) are not reported by default.
  return results.filter((r) => r.severity <= 1).map((r) => `${r.severity === 0 ? 'error' : 'warn'} ${String(r.code)}: ${r.message} (${r.path.join('.')})`);
}

describe('/openapi.json through standard linters', () => {
  it("has no error and no warning under Redocly's recommended rules", async () => {
    expect(await redocly(document)).toEqual([]);
    expect(await redocly(flawed((doc) => delete doc.info.license))).toEqual([expect.stringMatching(/^warn info-license/)]);
  });

  it("has no error and no warning under Spectral's spectral:oas rules", async () => {
    expect(await spectral(document)).toEqual([]);
    expect(await spectral(flawed((doc) => delete doc.paths['/openapi/v1/payments/payment']!.post!.description))).toEqual([expect.stringMatching(/^warn operation-description/)]);
  });
});
