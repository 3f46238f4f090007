/** Numbers derived from text: the same text always gives the same number, so replays draw alike. */
import { createHash } from 'node:crypto';

/** A 32-bit unsigned number from the SHA-256 of `text`. */
export function seedOf(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0);
}
