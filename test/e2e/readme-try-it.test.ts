import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '#infra/local/service.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * The README's "Try it", as a new user runs it: the commands are read from the README itself and run
 * by bash, twice against the same service (the second time on a service that already has data), with
 * only the address and the key's source pointed at the test service.
 */
const run = promisify(execFile);

function tryItCommands(service: TestService, keyFile: string): string {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Try it'),
    readme.indexOf('\n## ', readme.indexOf('## Try it') + 1),
  );
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  const commands = blocks.find((block) => block.includes('API=http://localhost:3000'));
  if (!commands) throw new Error('the README\'s "Try it" has no block of commands setting API=');
  expect(commands).toContain('KEY=$(cat .data/api-key)');
  return commands
    .replace('API=http://localhost:3000', `API=${service.baseUrl}`)
    .replace('KEY=$(cat .data/api-key)', `KEY=$(cat '${keyFile}')`);
}

let service: TestService;
let keyFile: string;
beforeAll(async () => {
  service = await startTestService();
  keyFile = join(REPO_ROOT, '.bench', `readme-key-${process.pid}`);
  await run('bash', [
    '-c',
    `mkdir -p "$(dirname '${keyFile}')" && printf %s '${service.apiKey}' > '${keyFile}'`,
  ]);
});
afterAll(async () => {
  await run('rm', ['-f', keyFile]);
  await service?.stop();
});

describe("the README's Try it", () => {
  it('runs to its end twice on one service: ids come from the answers, names never conflict', async () => {
    const script = `set -euo pipefail\n${tryItCommands(service, keyFile)}`;
    for (const round of [1, 2]) {
      const { stdout } = await run('bash', ['-c', script], { cwd: REPO_ROOT, timeout: 90_000 });
      expect(stdout, `round ${round}`).toContain('"value":"HELLO, ADA!"');
      expect(stdout, `round ${round}`).toContain('"overall_score":66.66666666666666');
      expect(stdout, `round ${round}`).toContain('"model":"gpt-4o"');
    }
  }, 200_000);
});
