/** The go-live readiness report's handler: the checklist of this merchant's integration (SPEC 16). */
import { junitOf } from '../../../readiness-command.js';
import { readinessOf } from '../../../services/readiness.js';
import { baseUrlOf } from '../../base-url.js';
import type { AppEnv } from '../../context.js';
import type { RouteHandler } from '../../contract/route.js';
import { ok } from '../../envelope.js';
import type * as routes from './readiness.routes.js';

export const report: RouteHandler<typeof routes.report, AppEnv> = async (c) => {
  const { store, merchants, journal } = c.get('services');
  const report = await readinessOf(store, await merchants.current(c.get('merchant')));
  const open = report.checks.filter((check) => check.required && check.status !== 'pass').map((check) => check.id);
  const description = report.ready
    ? 'Ready for go-live: every required check passes.'
    : `Not ready for go-live: ${open.length} required check${open.length === 1 ? '' : 's'} do${open.length === 1 ? 'es' : ''} not pass (${open.join(', ')}); each says what to do.`;
  // The evidence is recorded with the journal: without it the report sees no request at all.
  const off = journal.enabled ? '' : ' The journal is off on this sandbox (SANDBOX_JOURNAL=off), so no request of the integration was recorded: every check about requests reads as not tried.';
  return ok(c, description + off, {
    ready: report.ready,
    checks: report.checks.map((check) => ({ id: check.id, title: check.title, status: check.status, required: check.required, evidence: check.evidence, advice: check.advice })),
  });
};

/** The same report as a JUnit file: what `payreq-sandbox readiness --junit` writes, for a download from the dashboard. */
export const junit: RouteHandler<typeof routes.junit, AppEnv> = async (c) => {
  const { store, merchants } = c.get('services');
  const merchant = await merchants.current(c.get('merchant'));
  const report = await readinessOf(store, merchant);
  const xml = junitOf({ code: 200, description: '', ready: report.ready, checks: report.checks }, baseUrlOf(c));
  const file = `readiness-${merchant.payeeId.replace(/[^A-Za-z0-9._-]/g, '_')}.xml`;
  return c.body(xml, 200, { 'Content-Type': 'application/xml; charset=utf-8', 'Content-Disposition': `attachment; filename="${file}"` });
};
