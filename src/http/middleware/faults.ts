/**
 * Applies the faults of the Sandbox-Fault header and of the merchant's fault rules (public routes).
 * Runs inside the Idempotency-Key: a repeat is answered (402, 400 or the replay) before
 * any fault, and the key is claimed before a latency starts. The faults after commit are left to
 * the outermost layer (http/faults.ts), so the key keeps the committed answer before them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'hono';
import type { Merchant } from '../../domain/merchant.js';
import { describeFault, MAX_LATENCY_MS, parseFaults } from '../../domain/faults.js';
import type { Fault } from '../../domain/faults.js';
import type { FaultDraw } from '../../services/fault-rules.js';
import type { AppEnv } from '../context.js';
import { answerAfterCommit, answerBeforeCommit, injectedHeaders, noteFault, takeHeldPlace } from '../faults.js';
import type { AfterCommitFault } from '../faults.js';
import type { RouteCheck } from './auth.js';

const NO_DRAW: FaultDraw = { faults: [], fired: [] };
const afterCommit = (f: Fault): f is AfterCommitFault => f.kind === 'error-after-commit' || f.kind === 'timeout' || f.kind === 'drop';

/** What the app knows of its routes: whether one serves this request, and the methods its path serves (for Allow). */
export interface ServedRoutes {
  readonly serves: RouteCheck;
  readonly allowOf: (c: Context<AppEnv>) => string;
}

/**
 * Runs `run` under the faults of the Sandbox-Fault header (`header`) and the merchant's fault
 * rules. Only for a request a public route serves: one no route serves answers its 404 or 405 as
 * without a fault, and no rule is matched or used up by it. False when a fault answered before
 * anything ran (`error=`): nothing was committed.
 */
export async function withFaults(c: Context<AppEnv>, merchant: Merchant, header: string | undefined, routes: ServedRoutes, run: () => Promise<void>): Promise<boolean> {
  const fromHeader = header ? parseFaults(header) : [];
  const drawn = merchant.faultRules?.length ? await c.get('services').faultRules.draw(merchant, c.req.method, c.req.path) : NO_DRAW;
  const faults = [...fromHeader, ...drawn.faults];
  if (faults.length === 0) {
    await run();
    return true;
  }

  const applied: Fault[] = [];
  const apply = (fault: Fault) => {
    applied.push(fault);
    noteFault(c, describeFault(fault));
  };
  const latency = Math.min(
    faults.reduce((sum, f) => sum + (f.kind === 'latency' ? f.ms : 0), 0),
    MAX_LATENCY_MS,
  );
  const holdMs = faults.some((f) => f.kind === 'timeout') ? c.get('services').config.timeoutHoldMs : 0;
  // Refused, the rules that fired are given back: a request that changed nothing uses none up.
  const giveBackAll = () => c.get('services').faultRules.giveBack(merchant, drawn.fired.map((rule) => rule.ruleId));
  let place = latency + holdMs > 0 ? await takeHeldPlace(c, latency + holdMs, giveBackAll) : undefined;
  let ran = false;
  try {
    for (const fault of faults) if (fault.kind === 'latency') apply(fault);
    if (latency > 0) await sleep(latency);
    const before = faults.find((f) => f.kind === 'error');
    if (before?.kind === 'error') {
      apply(before);
      c.res = answerBeforeCommit(c, before.status, injectedHeaders(before.status, routes.allowOf(c)));
    } else {
      await run();
      ran = true;
      const after = faults.filter(afterCommit);
      // A handler that threw committed nothing: its own error answer stands.
      if (!c.error && after.length > 0) {
        for (const fault of after) apply(fault);
        answerAfterCommit(c, after, place, after.some((f) => f.kind === 'error-after-commit') ? routes.allowOf(c) : '');
        place = undefined;
      }
    }
  } finally {
    place?.release();
  }
  // A rule whose after-commit fault never got its chance is not used up by this request.
  const unused = drawn.fired.filter((rule) => rule.faults.some((f) => afterCommit(f) && !applied.includes(f))).map((rule) => rule.ruleId);
  await c.get('services').faultRules.giveBack(merchant, unused);
  return ran;
}
