/**
 * Applies the faults of the Sandbox-Fault header and of the merchant's fault rules (public routes).
 * Runs inside the Idempotency-Key: a repeat is answered (402, 400 or the replay) before
 * any fault, and the key is claimed before a latency starts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'hono';
import type { Merchant } from '../../domain/merchant.js';
import { describeFault, MAX_LATENCY_MS, parseFaults } from '../../domain/faults.js';
import type { Fault } from '../../domain/faults.js';
import type { FaultDraw } from '../../services/fault-rules.js';
import type { AppEnv } from '../context.js';
import { answerBeforeCommit, applyCommittedFault, injectedHeaders, spoilCommittedAnswer, takeHeldPlace } from '../faults.js';
import type { RouteCheck } from './auth.js';

const NO_DRAW: FaultDraw = { faults: [], fired: [] };
const afterCommit = (f: Fault) => f.kind === 'error-after-commit' || f.kind === 'timeout' || f.kind === 'drop';

/** What the app knows of its routes: whether one serves this request, and the methods its path serves (for Allow). */
export interface ServedRoutes {
  readonly serves: RouteCheck;
  readonly allowOf: (c: Context<AppEnv>) => string;
}

/**
 * Runs `run` under the faults of the Sandbox-Fault header (`header`) and the merchant's fault
 * rules. Only for a request a public route serves: one no route serves answers its 404 or 405 as
 * without a fault, and no rule is matched or used up by it.
 */
export async function withFaults(c: Context<AppEnv>, merchant: Merchant, header: string | undefined, routes: ServedRoutes, run: () => Promise<void>): Promise<void> {
  const fromHeader = header ? parseFaults(header) : [];
  const drawn = merchant.faultRules?.length ? await c.get('services').faultRules.draw(merchant, c.req.method, c.req.path) : NO_DRAW;
  const faults = [...fromHeader, ...drawn.faults];
  if (faults.length === 0) return run();

  const record = c.get('record');
  const applied: Fault[] = [];
  // Each fault is noted as it is applied: a held answer is journaled before the request ends.
  const apply = (fault: Fault) => {
    applied.push(fault);
    record.noteFault(describeFault(fault));
  };
  const latency = Math.min(
    faults.reduce((sum, f) => sum + (f.kind === 'latency' ? f.ms : 0), 0),
    MAX_LATENCY_MS,
  );
  const holdMs = faults.some((f) => f.kind === 'timeout') ? c.get('services').config.timeoutHoldMs : 0;
  // Refused, the rules that fired are given back: a request that changed nothing uses none up.
  const giveBackAll = () => c.get('services').faultRules.giveBack(merchant, drawn.fired.map((rule) => rule.ruleId));
  const place = latency + holdMs > 0 ? await takeHeldPlace(c, latency + holdMs, giveBackAll) : undefined;
  try {
    for (const fault of faults) if (fault.kind === 'latency') apply(fault);
    if (latency > 0) await sleep(latency);
    const before = faults.find((f) => f.kind === 'error');
    if (before?.kind === 'error') {
      apply(before);
      c.res = answerBeforeCommit(c, before.status, injectedHeaders(before.status, routes.allowOf(c)));
    } else {
      await run();
      // A handler that threw committed nothing: its own error answer stands.
      if (!c.error) {
        for (const fault of faults.filter(afterCommit)) {
          apply(fault);
          if (fault.kind === 'error-after-commit') c.res = await spoilCommittedAnswer(c, fault.status, injectedHeaders(fault.status, routes.allowOf(c)));
          else if (fault.kind === 'timeout' || fault.kind === 'drop') c.res = await applyCommittedFault(c, fault.kind);
        }
      }
    }
  } finally {
    place?.release();
  }
  // A rule whose after-commit fault never got its chance is not used up by this request.
  const unused = drawn.fired.filter((rule) => rule.faults.some((f) => afterCommit(f) && !applied.includes(f))).map((rule) => rule.ruleId);
  await c.get('services').faultRules.giveBack(merchant, unused);
}
