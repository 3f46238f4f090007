/**
 * QR images read back by an independent decoder (jsQR on pixels read by pngjs): the image at
 * image_url carries qr_data.payload, and keeps the 4-module quiet zone of the QR standard.
 */
import jsqr from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { createPayment, quietSandbox } from '../../support/http.js';

// jsqr is CommonJS typed as ESM: under NodeNext the default import is the module, its .default the function.
const jsQR = jsqr.default;
const QUIET_MODULES = 4;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await quietSandbox();
});
afterAll(() => sandbox.close());

async function fetchImage(imageUrl: string, query = ''): Promise<Response> {
  const response = await sandbox.fetch(new Request(`${imageUrl}${query}`));
  expect(response.status).toBe(200);
  return response;
}

async function pngOf(imageUrl: string): Promise<PNG> {
  return PNG.sync.read(Buffer.from(await (await fetchImage(imageUrl)).arrayBuffer()));
}

function isWhite(png: PNG, x: number, y: number): boolean {
  const i = (y * png.width + x) * 4;
  return png.data[i]! > 200 && png.data[i + 1]! > 200 && png.data[i + 2]! > 200;
}

/** The size in modules of a QR code of this version (ISO/IEC 18004: 21 for version 1, +4 a version). */
const modulesOf = (version: number) => 17 + 4 * version;

describe('QR images decode to the payload, with a 4-module quiet zone', () => {
  it.each(['QR_DYNAMIC', 'QR_STATIC', 'IN_APP'])('%s: the PNG at image_url decodes to qr_data.payload', async (productType) => {
    const created = await createPayment(sandbox, { product_type: productType, metadata: { note: 'a space' } });
    const png = await pngOf(created.qr_data.image_url as string);
    const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    expect(code, 'jsQR found no QR code in the PNG').not.toBeNull();
    expect(code!.data).toBe(created.qr_data.payload);
  });

  it('the PNG has 4 white modules on every side, and the finder pattern starts right after them', async () => {
    const created = await createPayment(sandbox);
    const png = await pngOf(created.qr_data.image_url as string);
    const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height)!;
    const modules = modulesOf(code.version);
    expect(png.width).toBe(png.height);
    const scale = png.width / (modules + 2 * QUIET_MODULES);
    expect(Number.isInteger(scale)).toBe(true);
    const quiet = QUIET_MODULES * scale;
    const darkInQuietZone: string[] = [];
    for (let y = 0; y < png.height; y++) {
      for (let x = 0; x < png.width; x++) {
        const inQuietZone = x < quiet || y < quiet || x >= png.width - quiet || y >= png.height - quiet;
        if (inQuietZone && !isWhite(png, x, y)) darkInQuietZone.push(`${x},${y}`);
      }
    }
    expect(darkInQuietZone.slice(0, 5)).toEqual([]);
    // The three finder patterns' outer corners are dark: the zone is exactly 4 modules, not more.
    const far = png.width - quiet - 1;
    for (const [x, y] of [[quiet, quiet], [far, quiet], [quiet, far]] as const) expect(isWhite(png, x, y), `corner ${x},${y}`).toBe(false);
  });

  it('the SVG draws on a canvas of the code plus 4 modules each side, and nothing in the quiet zone', async () => {
    const created = await createPayment(sandbox);
    const url = created.qr_data.image_url as string;
    const png = await pngOf(url);
    const modules = modulesOf(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)!.version);
    const svg = await (await fetchImage(url, '?format=svg')).text();
    const side = modules + 2 * QUIET_MODULES;
    expect(svg).toContain(`viewBox="0 0 ${side} ${side}"`);
    // The dark modules are one path of absolute moves (M x y) and relative runs (h n, m dx dy).
    const path = /<path stroke="[^"]+" d="([^"]+)"/.exec(svg)?.[1];
    expect(path).toBeDefined();
    let x = 0;
    let y = 0;
    const xs: number[] = [];
    const ys: number[] = [];
    for (const [, op, a, b] of path!.matchAll(/([MmhHvV])\s*(-?[\d.]+)(?:[\s,]+(-?[\d.]+))?/g)) {
      const dx = Number(a);
      if (op === 'M') [x, y] = [dx, Number(b)];
      else if (op === 'm') [x, y] = [x + dx, y + Number(b)];
      else if (op === 'h') {
        xs.push(x, x + dx);
        ys.push(y);
        x += dx;
      } else throw new Error(`unexpected path command ${op}`);
    }
    expect(Math.min(...xs)).toBe(QUIET_MODULES);
    expect(Math.max(...xs)).toBe(side - QUIET_MODULES);
    // Rows are stroked through their middle (y + 0.5).
    expect(Math.min(...ys)).toBe(QUIET_MODULES + 0.5);
    expect(Math.max(...ys)).toBe(side - QUIET_MODULES - 0.5);
  });
});
