/**
 * The cursor of GET /sandbox/v1/payments: opaque to the client, it names the last payment of the
 * page it came with and the merchant whose list that was, so a page never shifts when payments
 * are created meanwhile and one merchant's cursor never pages another's list.
 */
import { createHash } from 'node:crypto';
import { SandboxError } from '../../../domain/errors.js';

const VERSION = 1;
const BAD_CURSOR =
  'Invalid query parameter cursor: not one this list gave you; pass next_cursor from the previous page exactly as it came, or leave cursor out to start at the newest payment';

/** A short digest of the merchant: binds the cursor to its list without writing the payee id into it. */
const listTag = (payeeId: string): string => createHash('sha256').update(payeeId).digest('base64url').slice(0, 12);

export function encodeCursor(payeeId: string, lastPaymentId: string): string {
  return Buffer.from(JSON.stringify([VERSION, listTag(payeeId), lastPaymentId])).toString('base64url');
}

/** The payment a cursor continues after, or a 400 for anything this merchant's list did not give. */
export function decodeCursor(payeeId: string, cursor: string): string {
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw SandboxError.invalid(BAD_CURSOR, [{ field: 'cursor', message: 'not a cursor' }]);
  }
  if (!Array.isArray(fields) || fields.length !== 3 || fields[0] !== VERSION || fields[1] !== listTag(payeeId) || typeof fields[2] !== 'string') {
    throw SandboxError.invalid(BAD_CURSOR, [{ field: 'cursor', message: 'not a cursor of this list' }]);
  }
  return fields[2];
}

/** When the payment a cursor names is gone (a reset, a prune), the list cannot say where to go on. */
export function cursorGone(): SandboxError {
  return SandboxError.invalid(
    'cursor names a payment this merchant no longer has (erased by a reset or pruned): leave cursor out to start again at the newest payment',
    [{ field: 'cursor', message: 'its payment is gone' }],
  );
}
