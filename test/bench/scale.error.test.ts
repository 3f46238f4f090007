/** `npm run bench -- --scale` refuses flags it cannot honour, naming the flag, before it starts any server or database. */
import { describe, expect, it } from 'vitest';
import { scaleCommand } from '../../bench/scale.js';

describe('npm run bench -- --scale with wrong flags', () => {
  it('refuses a store it does not know', async () => {
    await expect(scaleCommand(['--scale', '--store', 'mysql'])).rejects.toThrow('--store takes file or postgres, not "mysql"');
  });

  it('refuses a count that is not a whole number of at least 1', async () => {
    await expect(scaleCommand(['--scale', '--merchants', '1e3'])).rejects.toThrow('--merchants takes a whole number of at least 1, not "1e3"');
    await expect(scaleCommand(['--scale', '--duration', '0'])).rejects.toThrow('--duration takes a whole number of at least 1, not "0"');
  });

  it('refuses several instances on the file store', async () => {
    await expect(scaleCommand(['--scale', '--instances', '2'])).rejects.toThrow('--instances needs --store postgres');
  });
});
