/** No answer leaves before the changes it may have read are in the log (see FileStore: group commit). */
import type { Context } from 'hono';
import { Code } from '../domain/codes.js';
import type { AppEnv } from './context.js';
import { send } from './envelope.js';

/**
 * Waits for the store's pending write, if any. When that write fails, its changes are undone,
 * so this answer (which may show them) is replaced by a 500 that says so. Once per request:
 * a later call (the outer middleware after the journal's) would wait for a newer batch, one the
 * answer never read, and could fail an answer whose own write had landed.
 */
export async function holdUntilWritten(c: Context<AppEnv>): Promise<void> {
  if (c.get('heldUntilWritten')) return;
  c.set('heldUntilWritten', true);
  const pending = c.get('services').store.pendingWrites();
  if (!pending) return;
  try {
    await pending;
  } catch {
    c.res = send(c, {
      code: Code.INTERNAL,
      description: 'The sandbox could not write its data file, so the changes made at the same moment were undone and this answer may not hold: retry the request.',
    });
  }
}
