/** The document (built once per server URL) and the reference page with its assets. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { RouterRoute } from 'hono/types';
import { baseUrlOf } from '../base-url.js';
import type { AppEnv } from '../context.js';
import { openApiDocument } from '../contract/document.js';
import type { RouteHandler } from '../contract/route.js';
import { ASSETS } from './reference.routes.js';
import type * as routes from './reference.routes.js';

const require = createRequire(import.meta.url);
const { version } = require('../../../package.json') as { version: string };

/** Serves the document of `served()` (the app's routes, read when first asked), one text per server URL. */
export function documentHandler(served: () => readonly RouterRoute[]): RouteHandler<typeof routes.document, AppEnv> {
  const texts = new Map<string, string>();
  return (c) => {
    const serverUrl = baseUrlOf(c);
    let text = texts.get(serverUrl);
    if (text === undefined) {
      text = JSON.stringify(openApiDocument(served(), { serverUrl, version }));
      // One per host a client uses; a flood of made-up Host headers only costs rebuilding.
      if (texts.size >= 16) texts.clear();
      texts.set(serverUrl, text);
    }
    return c.body(text, 200, { 'Content-Type': 'application/json; charset=UTF-8' });
  };
}

/** The page, its URLs relative to where it is served (`/docs`), so it works behind a proxy's path prefix too. */
function docsPage(assets: string, document: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>payreq-sandbox API reference</title><link rel="stylesheet" href="${assets}/swagger-ui.css"></head>
<body><div id="ui"></div><script src="${assets}/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '${document}', dom_id: '#ui', deepLinking: true });</script></body></html>`;
}

const DOCS_PAGE = docsPage('docs/assets', 'openapi.json');

export const page: RouteHandler<typeof routes.page, AppEnv> = (c) => c.html(DOCS_PAGE);

const assetCache = new Map<string, Buffer>();

function assetBytes(name: string): Buffer {
  let body = assetCache.get(name);
  if (!body) {
    body = readFileSync(path.join(path.dirname(require.resolve('swagger-ui-dist/package.json')), name));
    assetCache.set(name, body);
  }
  return body;
}

export const asset: RouteHandler<typeof routes.asset, AppEnv> = (c) => {
  const file = c.req.param('file');
  // Own keys only: the map's inherited ones (constructor, toString, ...) are no assets.
  const type = Object.hasOwn(ASSETS, file) ? ASSETS[file as keyof typeof ASSETS] : undefined;
  if (!type) return c.notFound();
  return c.body(new Uint8Array(assetBytes(file)), 200, { 'Content-Type': `${type}; charset=UTF-8`, 'Cache-Control': 'public, max-age=86400' });
};
