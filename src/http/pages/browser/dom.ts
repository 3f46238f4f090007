/**
 * Building the page from data: every value from the API or the merchant becomes a text node
 * (append of a string), never HTML, so metadata, references and bodies cannot run as markup.
 */

/** The frame's element of this id, of the kind the script uses it as (the server renders them all). */
export function byId<T extends HTMLElement>(id: string, kind: { new (): T; prototype: T }): T {
  const node = document.getElementById(id);
  if (!(node instanceof kind)) throw new Error(`The dashboard frame has no ${kind.name} #${id}.`);
  return node;
}

export type Child = Node | string | number | false | null | undefined;
/** The attributes the script sets, so a misspelt one fails the typecheck. */
type Attributes = {
  readonly [name in 'role' | 'type' | 'title' | 'href' | 'target' | 'rel' | 'src' | 'alt' | 'download' | 'aria-label' | 'aria-expanded' | 'aria-controls' | 'scope' | 'id']?: string;
} & { readonly [name in 'width' | 'height' | 'colspan' | 'tabindex']?: number } & { readonly loading?: 'lazy' | 'eager' };
export type Props = Attributes & { readonly class?: string; readonly data?: Readonly<Record<string, string>>; readonly onclick?: () => void };

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props | null, ...children: (Child | readonly Child[])[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  const { class: className, data, onclick, ...attributes }: Props = props ?? {};
  if (className) node.className = className;
  if (data) Object.assign(node.dataset, data);
  if (onclick) node.addEventListener('click', onclick);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined) node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export const isHttpUrl = (u: string): boolean => /^https?:\/\//.test(u);
export const money = (n: number): string => n.toFixed(2);
export const when = (unix: number): string => new Date(unix * 1000).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
/** JSON as a person reads it; a string (a body that was not JSON) as it came. */
export const pretty = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

/** A line to copy: the text in a code block, and a button that puts it on the clipboard (or selects it where the clipboard is closed). */
export function copyable(text: string, label: string): HTMLDivElement {
  const code = el('pre', { class: 'copy-text', tabindex: 0, 'aria-label': label }, text);
  const button = el('button', { type: 'button', class: 'secondary small', 'aria-label': 'Copy ' + label }, 'Copy');
  button.addEventListener('click', () => {
    const selectIt = () => {
      const range = document.createRange();
      range.selectNodeContents(code);
      const sel = window.getSelection();
      sel?.removeAllRanges();
      sel?.addRange(range);
      button.textContent = 'Selected: press Ctrl+C';
    };
    if (!navigator.clipboard) return selectIt();
    navigator.clipboard.writeText(text).then(() => {
      button.textContent = 'Copied';
    }, selectIt);
  });
  return el('div', { class: 'copy' }, code, button);
}

/** A field's message beside it, or none; the field is marked for assistive technology. */
export function fieldError(input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, message: string | null): void {
  const slot = document.getElementById(input.id + '-error');
  if (slot) slot.textContent = message ?? '';
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

/**
 * Redraws the items of `container` (each marked with the `attribute` that names it), and keeps a
 * reader's place: the button focused stays focused, and details opened stay open, in the same item.
 */
export function redrawKeepingPlace(container: HTMLElement, attribute: string, redraw: () => void): void {
  const nameOf = (node: Element): string | null => node.closest(`[${attribute}]`)?.getAttribute(attribute) ?? null;
  const active = document.activeElement;
  const focused = active instanceof HTMLElement && container.contains(active) ? { item: nameOf(active), action: active.dataset.action } : undefined;
  const opened = new Set([...container.querySelectorAll('details[open]')].map(nameOf));
  redraw();
  for (const item of container.querySelectorAll<HTMLElement>(`[${attribute}]`)) {
    const name = item.getAttribute(attribute);
    if (opened.has(name)) item.querySelector('details')?.setAttribute('open', '');
    if (focused?.action && focused.item === name) item.querySelector<HTMLElement>(`[data-action="${CSS.escape(focused.action)}"]`)?.focus();
  }
}
