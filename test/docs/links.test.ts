/**
 * Every relative link and #anchor of the user docs and the contributor notes resolves: the file
 * (or folder) exists, and an anchor names a heading of its page as GitHub slugs it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentationPages, ROOT } from './shell-blocks.js';

const PAGES = [...documentationPages(), 'CONTRIBUTING.md', 'bench/README.md'];

/** A page's text outside fenced code blocks, with its line numbers (1-based). */
function proseLines(markdown: string): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  let fenced = false;
  markdown.split('\n').forEach((line, i) => {
    if (/^```/.test(line)) fenced = !fenced;
    else if (!fenced) out.push([i + 1, line]);
  });
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces to -. */
function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\- _]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings; a repeated one gets -1, -2, ... as on GitHub. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, line] of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = slugOf(heading[1]!);
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

interface Link {
  readonly from: string;
  readonly line: number;
  readonly target: string;
}

function relativeLinks(file: string): Link[] {
  const links: Link[] = [];
  for (const [line, text] of proseLines(readFileSync(path.join(ROOT, file), 'utf8'))) {
    const prose = text.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ from: file, line, target });
    }
  }
  return links;
}

/** Why `link` does not resolve, or undefined when it does. */
function brokenBecause(link: Link): string | undefined {
  const [pathPart, anchor] = link.target.split('#', 2) as [string, string | undefined];
  const file = pathPart === '' ? link.from : path.normalize(path.join(path.dirname(link.from), pathPart));
  const absolute = path.join(ROOT, file);
  if (!existsSync(absolute)) return `${file} does not exist`;
  if (anchor === undefined) return undefined;
  if (!file.endsWith('.md')) return `#${anchor} points into ${file}, which is not a Markdown page`;
  return anchorsOf(readFileSync(absolute, 'utf8')).has(anchor) ? undefined : `${file} has no heading #${anchor}`;
}

describe('links of the docs', () => {
  it("slug headings as GitHub does", () => {
    expect(slugOf('Payer page: `GET /sandbox/pay/{payment_token}`')).toBe('payer-page-get-sandboxpaypayment_token');
    expect(slugOf('Idempotency-Key: retry without a second payment')).toBe('idempotency-key-retry-without-a-second-payment');
    expect([...anchorsOf('# A\n\n## A\n\n```\n# not a heading\n```\n## A\n')]).toEqual(['a', 'a-1', 'a-2']);
  });

  const links = PAGES.flatMap(relativeLinks);

  it('are found in every page', () => {
    expect(links.length).toBeGreaterThan(50);
    for (const page of ['README.md', 'docs/README.md']) expect(links.some((l) => l.from === page), page).toBe(true);
  });

  it('resolve: every relative link names a file that exists, every #anchor a heading of its page', () => {
    const broken = links.flatMap((link) => {
      const why = brokenBecause(link);
      return why === undefined ? [] : [`${link.from}:${link.line}: (${link.target}) ${why}`];
    });
    expect(broken, broken.join('\n')).toEqual([]);
  });
});
