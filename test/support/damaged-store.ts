/** A file store made and damaged in-process, for the damage tests: its payments, a crash, a refused start, a repair. */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { Payment } from '../../src/domain/payment.js';
import { FileStore } from '../../src/store/file-store.js';
import { tempDir } from './files.js';
import { capturedLog, LEVEL } from './log.js';
import { aPayment } from './payments.js';

export const M = 'DEMO-MERCHANT-1';

export function numbered(i: number): Payment {
  const tag = String(i).padStart(8, '0');
  return aPayment({ id: `pay_dmg${tag}ZZZZZZZZZZZZZ`, token: `ptok_dmg${tag}zzzzzzzzzzzzzzzzzzzzz`, code: `D${tag}ZZZ`, merchantRefNo: `dmg-${tag}` });
}

/** A store left open after `count` acknowledged creates, as a crash leaves it. */
export async function crashedWith(count: number, dataFile = path.join(tempDir(), 's.json'), snapshotAfterBytes?: number): Promise<string> {
  const store = new FileStore({ dataFile, snapshotAfterBytes });
  await store.open();
  for (let i = 0; i < count; i++) expect(await store.insertPayment(numbered(i))).toBe('inserted');
  await store.snapshotting;
  return dataFile;
}

/** The message of a refused start: it names what to do. */
export async function refusal(dataFile: string): Promise<string> {
  const error = await new FileStore({ dataFile }).open().then(() => undefined, (err: unknown) => err);
  expect(error).toBeInstanceOf(Error);
  const message = (error as Error).message;
  expect(message).toMatch(/restore .* from a copy/);
  expect(message).toContain('--repair');
  return message;
}

/** A start with repair; `told` is its line in the log, which says what it dropped and where the copies are. */
export async function repaired(dataFile: string): Promise<{ store: FileStore; told: { msg: string; dropped: string[]; copies: string[] } }> {
  const captured = capturedLog();
  const store = new FileStore({ dataFile, repair: true, logger: captured.log });
  await store.open();
  const told = captured.events().filter((line) => String(line.msg).startsWith('store started with --repair'));
  expect(told).toHaveLength(1);
  expect(told[0]).toEqual({ level: LEVEL.warn, time: expect.any(Number), file: dataFile, dropped: expect.any(Array), copies: expect.any(Array), msg: expect.stringContaining('--repair') });
  return { store, told: told[0] as { msg: string; dropped: string[]; copies: string[] } };
}

export function copiesOf(file: string): string[] {
  return readdirSync(path.dirname(file)).filter((f) => f.startsWith(`${path.basename(file)}.damaged-`));
}
