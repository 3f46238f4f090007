/**
 * Memory follows stored bytes (SPEC 18): heap per payment within 3x its stored bytes, whatever the
 * shape of its metadata, in a memory store and in a file store that reads the payments back at
 * start. Measured by bench/storage-memory.js in `node --expose-gc` children on dist/ (run
 * `npm run build` first), the same measurement `npm run bench -- --storage` prints.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a JavaScript module of the bench, without types
import { measureHeap, SHAPES } from '../../bench/storage-memory.js';

interface HeapFigure {
  readonly shape: string;
  readonly kind: string;
  readonly heapPerPayment: number;
  readonly storedPerPayment: number;
}

const measure = measureHeap as (shape: string, kind: string, count: number) => HeapFigure;

describe('heap per stored payment', () => {
  it('the shapes are what the hostile run sent: 8,167 bytes of [{},{},...] and ~7.8 KB of 50 keys', () => {
    const shapes = SHAPES as Record<string, string>;
    expect(shapes.adversarial!.length).toBe(8167);
    expect(Object.keys(JSON.parse(shapes.ordinary!) as object).length).toBe(50);
    expect(shapes.ordinary!.length).toBeGreaterThan(7500);
  });

  for (const shape of ['adversarial', 'ordinary']) {
    for (const kind of ['memory', 'file-restart']) {
      it(`${shape} metadata, ${kind}: within 3x the stored bytes`, () => {
        const figure = measure(shape, kind, 2000);
        console.log(`${shape} ${kind}: ${figure.heapPerPayment} B of heap per payment, ${figure.storedPerPayment} B stored (x${(figure.heapPerPayment / figure.storedPerPayment).toFixed(2)})`);
        expect(figure.storedPerPayment).toBeGreaterThan(8000);
        expect(figure.heapPerPayment).toBeGreaterThan(0);
        expect(figure.heapPerPayment).toBeLessThanOrEqual(3 * figure.storedPerPayment);
      }, 120_000);
    }
  }

  it('the measurement sees the difference: metadata kept as a tree of objects (as before) costs far more than 3x', () => {
    const figure = measure('adversarial', 'tree', 300);
    expect(figure.heapPerPayment).toBeGreaterThan(10 * figure.storedPerPayment);
  }, 120_000);
});
