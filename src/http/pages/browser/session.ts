/**
 * The merchant's key and every call made with it. The key lives in this tab's sessionStorage and
 * travels only as the Service-Api-Key header of same-origin fetches: never in a URL or a cookie.
 */
import type { Envelope } from './api.js';
import { byId, el, messageOf } from './dom.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
/** What an API call came back with: the route's 200 body, or the envelope of whatever else. */
export type Reply<T> = { readonly ok: true; readonly code: number; readonly body: T } | { readonly ok: false; readonly code: number; readonly body: Envelope & { readonly [field: string]: unknown } };

const STORE_KEY = 'payreq-sandbox.api-key';

/** Where the frame says the API is (behind a proxy, under a path prefix). */
function root(name: 'controlRoot' | 'publicRoot'): string {
  const at = byId('dashboard', HTMLElement).dataset[name];
  if (at === undefined) throw new Error(`The dashboard frame has no data-${name === 'controlRoot' ? 'control' : 'public'}-root.`);
  return at;
}

export const CONTROL = root('controlRoot');
export const PUBLIC = root('publicRoot');

let key = '';
try {
  key = sessionStorage.getItem(STORE_KEY) ?? '';
} catch {
  key = '';
}
let onRefused: (description: string) => void = () => {};

export const hasKey = (): boolean => key !== '';
/** What to do when the control API refuses the key (401): the dashboard goes back to its login. */
export function whenKeyRefused(handler: (description: string) => void): void {
  onRefused = handler;
}

export function useKey(candidate: string): void {
  key = candidate;
}

export function keepKey(): void {
  try {
    sessionStorage.setItem(STORE_KEY, key);
  } catch {}
}

export function forgetKey(): void {
  key = '';
  try {
    sessionStorage.removeItem(STORE_KEY);
  } catch {}
}

/** A same-origin call with the key as a header; a 401 from the control API forgets the key. */
export async function call<T>(method: Method, url: string, body?: unknown, extra: Record<string, string> = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...extra, 'Service-Api-Key': key };
  const init: RequestInit = { method, headers, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (err) {
    return { ok: false, code: 0, body: { code: 0, description: 'The sandbox did not answer (' + messageOf(err) + ').' } };
  }
  let data: unknown;
  try {
    data = await res.json();
  } catch {
    data = { code: res.status, description: 'The sandbox answered HTTP ' + res.status + ' without a JSON body.' };
  }
  const fields: { code?: unknown; description?: unknown } = typeof data === 'object' && data !== null ? data : {};
  const code = typeof fields.code === 'number' ? fields.code : res.status;
  const description = typeof fields.description === 'string' ? fields.description : '';
  if (code === 401 && url.startsWith(CONTROL)) {
    forgetKey();
    onRefused(description);
  }
  // The body is the contract's: the server's own tests hold it to that.
  if (code === 200) return { ok: true, code, body: data as T };
  return { ok: false, code, body: { ...(fields as object), code, description } };
}

/** A GET whose answer is not JSON (a file), with the key header. */
export function fetchWithKey(url: string): Promise<Response> {
  return fetch(url, { headers: { 'Service-Api-Key': key }, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
}

export const control = <T>(method: Method, path: string, body?: unknown): Promise<Reply<T>> => call<T>(method, CONTROL + path, body);

/** An answer in place: the envelope's code and description where the action was made. */
export function notice(where: HTMLElement, code: number, text: string): void {
  const tone = code >= 200 && code < 300 ? 'info' : 'error';
  where.replaceChildren(el('div', { class: 'notice ' + tone, role: 'status', data: { code: String(code) } }, el('span', { class: 'status-code' }, String(code)), ' ', text));
}

let busy = false;
/** One action at a time (a second click waits for nothing and does nothing); buttons keep their focus for the keyboard. */
export async function run(scope: HTMLElement, work: () => Promise<void>): Promise<void> {
  if (busy) return;
  busy = true;
  scope.setAttribute('aria-busy', 'true');
  try {
    await work();
  } finally {
    busy = false;
    scope.removeAttribute('aria-busy');
  }
}
export const isBusy = (): boolean => busy;
