/** Polls `check` until it gives a value (not undefined), or fails after `ms` naming what it waited for. */
export async function until<T>(check: () => T | undefined | Promise<T | undefined>, what: string, ms = 5_000, everyMs = 10): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
