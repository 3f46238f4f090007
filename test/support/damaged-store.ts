/** A file store made and damaged in-process, for the damage tests: its payments, a crash, a refused start, a repair. */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, vi } from 'vitest';
import type { Payment } from '../../src/domain/payment.js';
import { FileStore } from '../../src/store/file-store.js';
import { tempDir } from './files.js';
import { aPayment } from './payments.js';

export const M = 'DEMO-MERCHANT-1';

export function numbered(i: number): Payment {
  const tag = String(i).padStart(8, '0');
  return aPayment({ id: `pay_dmg${tag}ZZZZZZZZZZZZZ`, token: `ptok_dmg${tag}zzzzzzzzzzzzzzzzzzzzz`, code: `D${tag}ZZZ`, merchantRefNo: `dmg-${tag}` });
}

/** A store left open after `count` acknowledged creates, as a crash leaves it. */
export async function crashedWith(count: number, dataFile = path.join(tempDir(), 's.json')): Promise<string> {
  const store = new FileStore({ dataFile });
  await store.open();
  for (let i = 0; i < count; i++) expect(await store.insertPayment(numbered(i))).toBe('inserted');
  return dataFile;
}

export async function refusal(dataFile: string): Promise<string> {
  const error = await new FileStore({ dataFile }).open().then(() => undefined, (err: unknown) => err);
  expect(error).toBeInstanceOf(Error);
  const message = (error as Error).message;
  expect(message).toMatch(/restore .* from a copy/);
  expect(message).toContain('--repair');
  return message;
}

export async function repaired(dataFile: string): Promise<{ store: FileStore; told: string }> {
  const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const store = new FileStore({ dataFile, repair: true });
  await store.open();
  const told = errors.mock.calls.map((args) => args.join(' ')).join('\n');
  errors.mockRestore();
  return { store, told };
}

export function copiesOf(file: string): string[] {
  return readdirSync(path.dirname(file)).filter((f) => f.startsWith(`${path.basename(file)}.damaged-`));
}
