/** Who may enroll: behind SANDBOX_ADMIN_TOKEN its holder only, otherwise a few merchants a minute per client address (SPEC 15). */
import type { Context } from 'hono';
import { SandboxError } from '../../../domain/errors.js';
import { sameSecret } from '../../../domain/ids.js';
import { bearerToken } from '../../bearer.js';
import { clientOf } from '../../client-address.js';
import type { AppEnv } from '../../context.js';

/** Wrong admin tokens a client may send in any minute; past that every attempt waits, the right token too (else the answer would tell it). */
export const ADMIN_TOKEN_ATTEMPTS_PER_MINUTE = 10;

/** Throws the 401 or 429 that refuses this enrolment; returns when it may go ahead. */
export async function admitEnrolment(c: Context<AppEnv>): Promise<void> {
  const { adminToken } = c.get('services').config;
  if (adminToken !== undefined) await checkAdminToken(c, adminToken);
  await limitEnrolment(c);
}

/** Without an admin token, each client (an IPv4 address, an IPv6 /64) may enroll a few merchants in any minute (a sliding window, SPEC 15). */
async function limitEnrolment(c: Context<AppEnv>): Promise<void> {
  const { config, store, merchants } = c.get('services');
  if (config.adminToken !== undefined || config.enrollLimitPerMinute <= 0) return;
  const client = clientOf(c, config.trustProxy);
  if (client === 'in-process') return;
  const wait = await store.rateWindows.take(`enroll:${client}`, config.enrollLimitPerMinute, 60_000, merchants.realNow());
  if (wait > 0) {
    throw SandboxError.rateLimited(`Enrolment limit reached: ${config.enrollLimitPerMinute} merchants per minute from one client; retry after ${wait} s (see Retry-After), or reuse a merchant you enrolled (POST /sandbox/v1/reset erases its payments).`, wait);
  }
}

/** Behind SANDBOX_ADMIN_TOKEN: the token, compared in constant time, and wrong ones limited per client (an IPv4 address, an IPv6 /64). */
async function checkAdminToken(c: Context<AppEnv>, adminToken: string): Promise<void> {
  const { config, store, merchants } = c.get('services');
  const client = clientOf(c, config.trustProxy);
  const limited = client !== 'in-process';
  const key = `admin-token:${client}`;
  const refuse = (wait: number) =>
    SandboxError.rateLimited(`Too many wrong admin tokens: ${ADMIN_TOKEN_ATTEMPTS_PER_MINUTE} a minute from one client; retry after ${wait} s (see Retry-After) with Authorization: Bearer <SANDBOX_ADMIN_TOKEN>.`, wait);
  const waiting = limited ? await store.rateWindows.wait(key, ADMIN_TOKEN_ATTEMPTS_PER_MINUTE, 60_000, merchants.realNow()) : 0;
  if (waiting > 0) throw refuse(waiting);
  const token = bearerToken(c.req.header('authorization')) ?? '';
  if (sameSecret(token, adminToken)) return;
  // Another instance may have filled the window meanwhile: then this attempt is refused as over it.
  const over = limited ? await store.rateWindows.take(key, ADMIN_TOKEN_ATTEMPTS_PER_MINUTE, 60_000, merchants.realNow()) : 0;
  if (over > 0) throw refuse(over);
  throw SandboxError.unauthenticated('Enrolment on this sandbox needs the admin token: send Authorization: Bearer <SANDBOX_ADMIN_TOKEN>.');
}
