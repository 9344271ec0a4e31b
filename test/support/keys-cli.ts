import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '#infra/local/service.ts';

/**
 * The arguments `npm run keys` gives Node, as package.json spells the script (`node infra/scripts/keys.ts`):
 * tests run the CLI exactly as users do, with this process's Node (the project's Node 24), so a module
 * of its graph that Node's type stripping cannot run fails them.
 */
export function keysCliArgs(...args: string[]): string[] {
  const scripts = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).scripts as Record<
    string,
    string
  >;
  const [command, ...nodeArgs] = (scripts.keys ?? '').split(' ');
  if (command !== 'node') throw new Error(`npm run keys is not a node command: ${scripts.keys}`);
  return [...nodeArgs, ...args];
}
