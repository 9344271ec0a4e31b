import { createHash } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordDynamoCommands, type SentCommand } from '#test/support/dynamo-commands.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * The report store against the emulators of the local runtime: the order of its single-item writes
 * (a crash between two leaves nothing a reader sees as broken) and that the definition code never
 * writes the run's state on the head. Every DynamoDB command the code sends is recorded.
 */
let service: TestService;
let m: {
  definitions: typeof import('#shared/reports/definitions.ts');
  headEdits: typeof import('#shared/reports/head-edits.ts');
  store: typeof import('#shared/reports/store.ts');
  head: typeof import('#shared/reports/head.ts');
  lock: typeof import('#shared/reports/column-lock.ts');
};
let sent: SentCommand[];
let groupId: number;

beforeAll(async () => {
  service = await startTestService();
  m = {
    definitions: await import('#shared/reports/definitions.ts'),
    headEdits: await import('#shared/reports/head-edits.ts'),
    store: await import('#shared/reports/store.ts'),
    head: await import('#shared/reports/head.ts'),
    lock: await import('#shared/reports/column-lock.ts'),
  };
  const group = await service.call('POST', '/api/public/v2/dataset-groups', { body: { name: 'store' } });
  groupId = group.body.dataset_group.id;
  await service.call('POST', '/api/public/v2/dataset-versions/from-file', {
    body: {
      dataset_group_id: groupId,
      file_name: 'e.csv',
      file_content_base64: Buffer.from('question,expected\nq,a\n').toString('base64'),
    },
  });
  await service.messaging.idle();
  sent = await recordDynamoCommands();
});
afterAll(() => service?.stop());

/** The writes to report items, in order (the recorder sees the low-level, marshalled commands). */
type Attribute = string | { S?: string } | undefined;
const text = (value: Attribute) => (typeof value === 'string' ? value : (value?.S ?? ''));
const writes = () =>
  sent
    .filter((c) => ['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand'].includes(c.name))
    .map((c) => {
      const key = (c.input.Key ?? c.input.Item) as { PK?: Attribute; SK?: Attribute };
      return {
        name: c.name,
        key: { PK: text(key.PK), SK: text(key.SK) },
        update: c.input.UpdateExpression as string | undefined,
      };
    })
    .filter((w) => w.key.PK.includes('#RPT'));

const column = (name: string) => ({
  column_type: 'COMPARE',
  name,
  configuration: { sources: ['question', 'expected'], comparison_type: { type: 'STRING' } },
});

describe('report store write order', () => {
  it('writes each column pointer before its column, and the head last', async () => {
    const ws = service.workspaceId;
    sent.length = 0;

    const created = await m.definitions.createReport(
      { workspaceId: ws, userId: 1, userEmail: null },
      { dataset_group_id: groupId, columns: [column('a'), column('b')] },
    );
    const copy = await m.store.copyReport(await m.head.requireReport(ws, created.report_id), 'copy', {
      userId: 1,
    });
    const all = writes();

    const heads = all.flatMap((w, i) => (w.key.SK === 'RPT' ? [i] : []));
    expect(heads.map((i) => all[i]!.name)).toEqual(['PutItemCommand', 'PutItemCommand']);
    const byReport = (id: number) => all.filter((w) => w.key.PK === `W#${ws}#RPT#${id}`);
    expect(byReport(created.report_id).at(-1)?.key.SK).toBe('RPT');
    expect(byReport(copy.id).at(-1)?.key.SK).toBe('RPT');
    for (const [i, write] of all.entries()) {
      if (!write.key.SK.startsWith('COL#')) continue;
      const pointer = all.findIndex((w) => w.key.PK === `W#${ws}#RPTCOL#${write.key.SK.slice(4)}`);
      expect(pointer).toBeGreaterThanOrEqual(0);
      expect(pointer).toBeLessThan(i);
    }
    expect((await m.store.listColumns(ws, copy.id)).map((c) => c.name)).toEqual(['a', 'b']);
  });

  it('edits the head only with updates of its own attributes, never the run', async () => {
    const ws = service.workspaceId;
    const created = await m.definitions.createReport(
      { workspaceId: ws, userId: 1, userEmail: null },
      { dataset_group_id: groupId, columns: [column('a')] },
    );
    const [a] = await m.store.listColumns(ws, created.report_id);
    sent.length = 0;

    await m.headEdits.renameReport(ws, created.report_id, { name: 'n', tags: ['t'] });
    await m.definitions.addColumn(ws, { report_id: created.report_id, ...column('b'), position: 1 });
    await m.definitions.patchColumn(ws, a!.id, {
      report_id: created.report_id,
      column_type: 'COMPARE',
      position: 1,
    });
    await m.definitions.removeColumn(ws, a!.id);
    await m.headEdits.archiveReport(ws, created.report_id);
    const headWrites = writes().filter((w) => w.key.SK === 'RPT');

    // rename, archive, and each of the three column edits taking and giving up its lease.
    expect(headWrites.length).toBe(8);
    for (const write of headWrites) {
      expect(write.name).toBe('UpdateItemCommand');
      expect(write.update).not.toMatch(/#run\b/);
    }
  });
});

describe('external ids claimed by a create that crashed', () => {
  /** A mapping held by report `entityId`, claimed `ageMs` ago, as a create leaves it before its head. */
  async function leftClaim(
    mapping: { source: string; external_id: string },
    entityId: number,
    ageMs: number,
  ) {
    const { dynamo, table } = await import('#shared/platform/dynamo.ts');
    const ws = service.workspaceId;
    const hash = createHash('sha256')
      .update(JSON.stringify([mapping.source, mapping.external_id]))
      .digest('hex');
    const createdAt = Date.now() - ageMs;
    await dynamo.send(
      new PutCommand({
        TableName: table(),
        Item: {
          PK: `W#${ws}#XID#report#${hash}`,
          SK: 'XID',
          GSI1PK: `W#${ws}#XIDS#report#${entityId}`,
          GSI1SK: `${String(createdAt).padStart(15, '0')}#${hash}`,
          entity_type: 'report',
          entity_id: entityId,
          source: mapping.source,
          external_id: mapping.external_id,
          created_at: createdAt,
        },
      }),
    );
  }

  const caller = () => ({ workspaceId: service.workspaceId, userId: 1, userEmail: null });

  it('takes over a mapping of a report never written once the grace period passed', async () => {
    const mapping = { source: 'crash', external_id: 'old' };
    await leftClaim(mapping, 987_654_321, 120_000);

    const created = await m.definitions.createReport(caller(), {
      dataset_group_id: groupId,
      external_ids: [mapping],
    });

    expect(created.external_ids).toEqual([mapping]);
  });

  it('still refuses (409) a fresh claim, and a mapping of a live report', async () => {
    const fresh = { source: 'crash', external_id: 'fresh' };
    await leftClaim(fresh, 987_654_322, 0);
    const owner = await m.definitions.createReport(caller(), { dataset_group_id: groupId });
    const held = { source: 'crash', external_id: 'held' };
    await leftClaim(held, owner.report_id, 120_000);

    for (const mapping of [fresh, held]) {
      await expect(
        m.definitions.createReport(caller(), { dataset_group_id: groupId, external_ids: [mapping] }),
      ).rejects.toMatchObject({ status: 409 });
    }
  });

  it("takes over a deleted report's mapping at once (nothing else could free it)", async () => {
    const owner = await m.definitions.createReport(caller(), { dataset_group_id: groupId });
    await m.headEdits.archiveReport(service.workspaceId, owner.report_id);
    const held = { source: 'crash', external_id: 'archived' };
    await leftClaim(held, owner.report_id, 0);

    const created = await m.definitions.createReport(caller(), {
      dataset_group_id: groupId,
      external_ids: [held],
    });

    expect(created.external_ids).toEqual([held]);
  });
});

describe('the column lease', () => {
  it('makes an edit that comes while another writes its columns wait for them (two adds of one name: one 400)', async () => {
    const ws = service.workspaceId;
    const created = await m.definitions.createReport(
      { workspaceId: ws, userId: 1, userEmail: null },
      { dataset_group_id: groupId, columns: [column('a')] },
    );
    const { report, revision } = await m.lock.reportForEdit(ws, created.report_id);
    const current = await m.store.listColumns(ws, report.id, { consistent: true });
    let second: Promise<unknown> | undefined;
    // This edit holds the lease; the other one starts after the revision moved but before the column exists.
    await m.lock.withColumnsLocked(ws, report, revision, async () => {
      second = m.definitions.addColumn(ws, { report_id: report.id, ...column('same') } as never).then(
        () => 'added',
        (error: { statusCode?: number; code?: string }) => error.code ?? error.statusCode,
      );
      await new Promise((resolve) => setImmediate(resolve));
      const added = { ...current[0]!, id: 900_000 + report.id, name: 'same', position: 2 };
      await m.store.writeColumnOrder(ws, current, [...current, added], new Set([added.id]));
    });
    expect(await second).toBe('duplicate_column_name');
    const names = (await m.store.listColumns(ws, report.id, { consistent: true })).map((c) => c.name);
    expect(names).toEqual(['a', 'same']);
  });

  it('refuses the lock to an edit that read the columns while another was writing them, even after that lease is gone', async () => {
    const ws = service.workspaceId;
    const created = await m.definitions.createReport(
      { workspaceId: ws, userId: 1, userEmail: null },
      { dataset_group_id: groupId, columns: [column('a')] },
    );
    const { report, revision } = await m.lock.reportForEdit(ws, created.report_id);
    let midEdit: Awaited<ReturnType<typeof m.lock.reportForEdit>> | undefined;
    await m.lock.withColumnsLocked(ws, report, revision, async () => {
      midEdit = await m.lock.reportForEdit(ws, report.id);
    });
    const late = m.lock.withColumnsLocked(ws, midEdit!.report, midEdit!.revision, async () => 'written');
    await expect(late).rejects.toMatchObject({ code: 'concurrent_change' });
  });

  it('refuses a run whose columns changed after its snapshot read them, and one while an edit holds the lease', async () => {
    const ws = service.workspaceId;
    const created = await m.definitions.createReport(
      { workspaceId: ws, userId: 1, userEmail: null },
      { dataset_group_id: groupId, columns: [column('a')] },
    );
    const { report, revision } = await m.lock.reportForEdit(ws, created.report_id);
    const { beginRun } = m.head;
    const run = {
      number: 1,
      status: 'RUNNING' as const,
      startedAt: new Date().toISOString(),
      rowCount: 1,
      batchSize: 10,
      batchCount: 1,
      cellCount: 1,
      startedCells: 0,
      completedCells: 0,
      failedCells: 0,
      score: null,
      scoreError: null,
    };
    const dataset = { id: report.datasetId, versionNumber: report.datasetVersionNumber };
    const outcomes: string[] = [];
    await m.lock.withColumnsLocked(ws, report, revision, async () => {
      outcomes.push(
        await beginRun(
          ws,
          report.id,
          run,
          dataset,
          new Date().toISOString(),
          m.lock.columnsUnlocked(revision + 1, Date.now()),
        ),
      );
    });
    outcomes.push(
      await beginRun(
        ws,
        report.id,
        run,
        dataset,
        new Date().toISOString(),
        m.lock.columnsUnlocked(revision, Date.now()),
      ),
    );
    expect(outcomes).toEqual(['changed', 'changed']);
    expect((await m.head.requireReport(ws, report.id)).run).toBeUndefined();
  });
});
