/** The HTML frame of the pages, and the headers that keep them private and script-safe. */
import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { html, raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import { baseUrlOf } from '../base-url.js';
import type { AppEnv } from '../context.js';

export interface DocumentProps {
  readonly title: string;
  readonly nonce: string;
  readonly css: string;
  readonly children?: Child;
}

export function Document({ title, nonce, css, children }: DocumentProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <meta name="referrer" content="no-referrer" />
        <link rel="icon" href="data:," />
        <title>{title}</title>
        {/* The CSS is a constant of the sandbox, never data. */}
        <style nonce={nonce}>{raw(css)}</style>
      </head>
      <body>
        <div class="sandbox-ribbon">
          <strong>SANDBOX</strong> · payreq-sandbox · no real money moves
        </div>
        {children}
      </body>
    </html>
  );
}

/** The path part of {base}, so links and form actions work behind a proxy with a path prefix. */
export function basePathOf(c: Context<AppEnv>): string {
  return new URL(baseUrlOf(c)).pathname.replace(/\/+$/, '');
}

/**
 * Renders a page with a per-response nonce: only the sandbox's own inline CSS and script run,
 * nothing is cached, and the URL (which holds the payment token) never leaks as a Referer.
 */
export async function sendPage(c: Context<AppEnv>, render: (nonce: string) => Child, status = 200): Promise<Response> {
  const nonce = randomBytes(16).toString('base64');
  const baseOrigin = new URL(baseUrlOf(c)).origin;
  const self = baseOrigin === new URL(c.req.url).origin ? "'self'" : `'self' ${baseOrigin}`;
  const csp = [
    "default-src 'none'",
    `img-src ${self} data:`,
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    `connect-src ${self}`,
    `form-action ${self}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  const body = await html`<!DOCTYPE html>${render(nonce)}`;
  return c.html(body, status as 200, {
    'Content-Security-Policy': csp,
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
  });
}
