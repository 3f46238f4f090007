/**
 * Applies the faults of the Sandbox-Fault header and of the merchant's fault rules (public routes).
 * Runs inside the Idempotency-Key middleware: a repeat is answered (402, 400 or the replay) before
 * any fault, and the key is claimed before a latency starts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createMiddleware } from 'hono/factory';
import { describeFault, MAX_LATENCY_MS, parseFaults } from '../../domain/faults.js';
import type { Fault } from '../../domain/faults.js';
import type { FaultDraw } from '../../services/fault-rules.js';
import type { AppEnv } from '../context.js';
import { answerBeforeCommit, applyCommittedFault, noteFault, spoilCommittedAnswer, takeHeldPlace } from '../faults.js';

const NO_DRAW: FaultDraw = { faults: [], fired: [] };
const afterCommit = (f: Fault) => f.kind === 'error-after-commit' || f.kind === 'timeout' || f.kind === 'drop';

export const injectFaults = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header('sandbox-fault');
  const merchant = c.get('merchant');
  if (!merchant) return next();
  const fromHeader = header ? parseFaults(header) : [];
  const drawn = merchant.faultRules?.length ? await c.get('services').faultRules.draw(merchant, c.req.method, c.req.path) : NO_DRAW;
  const faults = [...fromHeader, ...drawn.faults];
  if (faults.length === 0) return next();

  const applied: Fault[] = faults.filter((f) => f.kind === 'latency');
  const latency = Math.min(
    applied.reduce((sum, f) => sum + (f.kind === 'latency' ? f.ms : 0), 0),
    MAX_LATENCY_MS,
  );
  const holdMs = faults.some((f) => f.kind === 'timeout') ? c.get('services').config.timeoutHoldMs : 0;
  // Refused, the rules that fired are given back: a request that changed nothing uses none up.
  const giveBackAll = () => c.get('services').faultRules.giveBack(merchant, drawn.fired.map((rule) => rule.ruleId));
  const place = latency + holdMs > 0 ? await takeHeldPlace(c, latency + holdMs, giveBackAll) : undefined;
  try {
    if (latency > 0) await sleep(latency);
    const before = faults.find((f) => f.kind === 'error');
    if (before?.kind === 'error') {
      applied.push(before);
      c.res = answerBeforeCommit(c, before.status);
    } else {
      await next();
      // A handler that threw committed nothing: its own error answer stands.
      if (!c.error) {
        for (const fault of faults.filter(afterCommit)) {
          applied.push(fault);
          if (fault.kind === 'error-after-commit') c.res = await spoilCommittedAnswer(c, fault.status);
          else if (fault.kind === 'timeout' || fault.kind === 'drop') c.res = await applyCommittedFault(c, fault.kind);
        }
      }
    }
  } finally {
    place?.release();
  }
  if (applied.length > 0) noteFault(c, applied.map(describeFault).join(', '));
  // A rule whose after-commit fault never got its chance is not used up by this request.
  const unused = drawn.fired.filter((rule) => rule.faults.some((f) => afterCommit(f) && !applied.includes(f))).map((rule) => rule.ruleId);
  await c.get('services').faultRules.giveBack(merchant, unused);
});
