/**
 * /openapi.json through two standard linters, as an integrator's tooling would read it:
 * Redocly's `recommended` rules and Spectral's `spectral:oas`. Errors fail; warnings (a
 * description per operation, a contact) are style, not correctness.
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

describe('/openapi.json through standard linters', () => {
  it("has no error under Redocly's recommended rules", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: document, absoluteRef: 'openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ''})`);
    expect(errors).toEqual([]);
    // The linter ran: the document's own style warnings are found, so a silent linter cannot pass this.
    expect(problems.length).toBeGreaterThan(0);
  });

  it("has no error under Spectral's spectral:oas rules", async () => {
    const spectral = new spectralCore.Spectral();
    spectral.setRuleset({ extends: [[oas as never, 'recommended']] });
    const results = await spectral.run(new spectralCore.Document(document, spectralParsers.Json, 'openapi.json'));
    const errors = results.filter((r) => r.severity === 0).map((r) => `${String(r.code)}: ${r.message} (${r.path.join('.')})`);
    expect(errors).toEqual([]);
    expect(results.length).toBeGreaterThan(0);
  });
});
