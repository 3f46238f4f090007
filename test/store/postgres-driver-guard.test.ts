/** The one uncaught driver error the server lets pass (the database died under load), and nothing else. */
import { describe, expect, it } from 'vitest';
import { isDriverWriteAfterClose } from '../../src/store/postgres-connection.js';

describe('isDriverWriteAfterClose', () => {
  const withStack = (err: Error, stack: string) => Object.assign(err, { stack });

  it("recognises postgres.js writing to a socket it already dropped", () => {
    const err = withStack(new TypeError("Cannot read properties of null (reading 'write')"), "TypeError: Cannot read properties of null (reading 'write')\n    at nextWrite (/app/node_modules/postgres/src/connection.js:255:22)");
    expect(isDriverWriteAfterClose(err)).toBe(true);
  });

  it('lets every other error through: the same message elsewhere, another error from the driver, not a TypeError', () => {
    expect(isDriverWriteAfterClose(withStack(new TypeError("Cannot read properties of null (reading 'write')"), 'TypeError\n    at ours (/app/dist/server.js:1:1)'))).toBe(false);
    expect(isDriverWriteAfterClose(withStack(new TypeError("Cannot read properties of null (reading 'end')"), 'TypeError\n    at x (/app/node_modules/postgres/src/connection.js:1:1)'))).toBe(false);
    expect(isDriverWriteAfterClose(withStack(new Error("reading 'write'"), 'Error\n    at x (/app/node_modules/postgres/src/connection.js:1:1)'))).toBe(false);
    expect(isDriverWriteAfterClose('not an error')).toBe(false);
  });
});
