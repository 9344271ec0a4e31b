import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countDynamoWaves } from '#infra/bench/support.ts';
import { documentClient } from '#shared/platform/dynamo.ts';
import { resetIdBlocks } from '#shared/platform/ids.ts';
import * as labels from '#shared/prompts/labels.ts';
import * as lookup from '#shared/prompts/lookup.ts';
import * as read from '#shared/prompts/read.ts';
import * as repository from '#shared/prompts/repository.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { completion, publishDirect, uniqueName } from '#test/support/prompts.ts';

/**
 * The round-trip budgets of prompt publishes and reads against dynalite: sequential DynamoDB round trips ("waves") of a
 * cold publish and of reads by label, whatever version the label is on.
 */
let service: TestService;
let ws: number;
let waves: ReturnType<typeof countDynamoWaves>;
beforeAll(async () => {
  // No bus rules: the webhook fan-out of each publish's events would add its own calls to the count.
  service = await startTestService({ eventRules: {} });
  ws = service.workspaceId;
  waves = countDynamoWaves(documentClient());
});
afterAll(() => service?.stop());

const publish = (name: string, text: string, releaseLabels: string[] = []) =>
  publishDirect(ws, name, completion(text), { release_labels: releaseLabels });
const options = { resolveSnippets: true, includeLlmKwargs: false };

async function counted(run: () => Promise<unknown>) {
  waves.reset();
  await run();
  return waves.waves;
}

describe('publish', () => {
  it('creates a template with two labels in at most 4 round trips on a cold container', async () => {
    await publish(uniqueName('warm'), 'warm', ['prod']);
    resetIdBlocks();
    expect(await counted(() => publish(uniqueName('cold'), 'cold', ['prod', 'staging']))).toBeLessThanOrEqual(
      4,
    );
  });
});

describe('reads by label', () => {
  it('answers a label on an older version in one round trip, and the right version', async () => {
    const name = uniqueName('older');
    await publish(name, 'one', ['prod']);
    await publish(name, 'two');
    let answer: Awaited<ReturnType<typeof read.loadRawTemplate>> | undefined;
    expect(
      await counted(async () => {
        answer = await read.loadRawTemplate(ws, name, { ...options, label: 'prod' });
      }),
    ).toBe(1);
    expect(answer?.view).toMatchObject({ version: 1, prompt_template: completion('one') });
  });

  it('costs one round trip per snippet level when labels point at older versions', async () => {
    const leaf = uniqueName('leaf');
    const middle = uniqueName('middle');
    await publish(leaf, 'leaf v1', ['prod']);
    await publish(leaf, 'leaf v2');
    await publish(middle, `middle v1 @@@${leaf}@label:prod@@@`, ['prod']);
    await publish(middle, 'middle v2');
    const top = uniqueName('top');
    await publish(top, `top @@@${middle}@label:prod@@@`);
    let answer: Awaited<ReturnType<typeof read.loadRawTemplate>> | undefined;
    // The template itself, then one round per level.
    expect(
      await counted(async () => {
        answer = await read.loadRawTemplate(ws, top, options);
      }),
    ).toBe(3);
    expect(answer?.view.prompt_template).toMatchObject(completion('top middle v1 leaf v1'));
  });

  it('reads the right version when the label copy is out of step with the head', async () => {
    const name = uniqueName('out-of-step');
    await publish(name, 'one', ['prod']);
    const two = await publish(name, 'two');
    const prod = (await repository.getHead(ws, name))!.labels.prod!;
    // A move that stopped after moving the head, before its copy: the head names version 2.
    await repository.updateHead(ws, name, {
      move: [{ name: 'prod', id: prod.id, prompt_version_id: two.prompt_version_id, version_number: 2 }],
    });
    expect((await lookup.readTemplate(ws, name, { label: 'prod' })).version.number).toBe(2);
    // The next move through the API puts the copy back in step: one round trip again.
    await labels.moveLabel(ws, prod.id, 2);
    expect(await counted(() => lookup.readTemplate(ws, name, { label: 'prod' }))).toBe(1);
  });
});
