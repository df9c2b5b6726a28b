/** The suite's version, from the nearest package.json above this module (the repository, or the installed package). */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function suiteVersion(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const path = join(dir, 'package.json');
    if (existsSync(path)) {
      const version = (JSON.parse(readFileSync(path, 'utf8')) as { version?: unknown }).version;
      return (cached = typeof version === 'string' ? version : 'unknown');
    }
    const parent = dirname(dir);
    if (parent === dir) return (cached = 'unknown');
    dir = parent;
  }
}
