/** The addresses of this machine's interfaces, read at each call: a webhook must not reach the instance itself, and interfaces come and go. */
import { networkInterfaces } from 'node:os';

export function ownAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}
