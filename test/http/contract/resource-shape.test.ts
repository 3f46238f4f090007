/** One shape for every resource (STYLE.md): a folder with its contracts, its handlers and the index that binds them. */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const AREAS = ['src/http/api', 'src/http/sandbox'];

describe('the resources under src/http/api and src/http/sandbox', () => {
  it.each(AREAS)('%s holds folders only, no flat resource file', (area) => {
    const files = readdirSync(area, { withFileTypes: true }).filter((entry) => !entry.isDirectory()).map((entry) => entry.name);
    expect(files).toEqual([]);
  });

  it.each(AREAS.flatMap((area) => readdirSync(area, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => `${area}/${entry.name}`)))(
    '%s has its .routes.ts, .handlers.ts and .index.ts',
    (folder) => {
      const name = folder.split('/').at(-1) as string;
      const present = new Set(readdirSync(folder));
      expect(['routes', 'handlers', 'index'].filter((part) => !present.has(`${name}.${part}.ts`))).toEqual([]);
    },
  );
});
