import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { emitEvents, type NewEvent } from '#shared/events/emit.ts';
import { acknowledgeEvent, eventKey, pendingEvents } from '#shared/events/store.ts';
import { EVENT_REDELIVERY_AFTER_ENV, MAX_SWEEPS, sweepEvents } from '#shared/events/sweep.ts';
import { dynamo, table } from '#shared/platform/dynamo.ts';
import { logger } from '#shared/platform/logger.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/** Durable events against dynalite and the local bus: recorded, put, acknowledged, swept. */
let service: TestService;
let ws: number;
beforeAll(async () => {
  // No bus rules: no consumer (the webhook fan-out) acknowledges events behind the tests' back.
  service = await startTestService({ eventRules: {} });
  ws = service.workspaceId;
  process.env[EVENT_REDELIVERY_AFTER_ENV] = '0';
});
afterAll(async () => {
  delete process.env[EVENT_REDELIVERY_AFTER_ENV];
  await service?.stop();
});

let promptId = 1_000;
const versionCreated = (key?: string): NewEvent => ({
  type: 'prompt_template_version_created',
  details: { prompt_id: ++promptId, prompt_name: 'greeting', prompt_version_id: 7, version_number: 2 },
  key,
});
/** The events the local bus received for one prompt id, in order. */
const onBus = (prompt: number) =>
  service.messaging.events
    .map((event) => event.detail as { event_id: string; details: { prompt_id?: number } })
    .filter((detail) => detail.details.prompt_id === prompt);
const stored = async (eventId: string) =>
  (await dynamo.send(new GetCommand({ TableName: table(), Key: eventKey(ws, eventId) }))).Item;
const isPending = async (eventId: string) =>
  (await pendingEvents(new Date(Date.now() + 60_000), 1_000)).some(
    ({ detail }) => detail.event_id === eventId,
  );

let bus: ReturnType<typeof mockClient> | undefined;
afterEach(() => {
  bus?.restore();
  bus = undefined;
});

describe('emitting', () => {
  it('records the event, then puts it on the bus in the envelope with its id and actor', async () => {
    await emitEvents(ws, [versionCreated()], { userId: 5, userEmail: 'ada@example.com' });
    const [detail] = onBus(promptId);
    expect(detail).toEqual({
      event_id: expect.stringMatching(/^ev_[0-9a-f]{32}$/),
      event_type: 'prompt_template_version_created',
      details: { prompt_id: promptId, prompt_name: 'greeting', prompt_version_id: 7, version_number: 2 },
      user_id: 5,
      user_name: null,
      user_email: 'ada@example.com',
      workspace_id: ws,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    expect(await isPending(detail!.event_id)).toBe(true);
  });

  it('records and sweeps details holding any JSON number (a score past what DynamoDB numbers hold)', async () => {
    const details = {
      report_id: 9_001,
      report_name: 'huge',
      parent_report_id: null,
      dataset_id: 1,
      status: 'COMPLETED' as const,
      overall_score: 1e200,
      status_counts: { COMPLETED: 2, FAILED: 0 },
    };
    await emitEvents(ws, [{ type: 'report_finished', details }]);
    const onTheBus = service.messaging.events
      .map((event) => event.detail as { event_id: string; details: { report_id?: number } })
      .filter((detail) => detail.details.report_id === 9_001);
    expect(onTheBus).toMatchObject([{ event_type: 'report_finished', details }]);
    const pending = await pendingEvents(new Date(Date.now() + 60_000), 1_000);
    expect(pending.find(({ detail }) => detail.event_id === onTheBus[0]!.event_id)?.detail).toEqual(
      onTheBus[0],
    );
  });

  it('refuses an event whose details do not match the catalogue, writing nothing', async () => {
    const before = await service.countItems();
    const bad = {
      type: 'prompt_template_version_created',
      details: { prompt_id: 'x' },
    } as unknown as NewEvent;
    await expect(emitEvents(ws, [bad])).rejects.toThrow();
    expect(await service.countItems()).toBe(before);
  });

  it('makes one event of a keyed change reported twice', async () => {
    const event = versionCreated('job-1');
    await emitEvents(ws, [event]);
    await emitEvents(ws, [event]);
    expect(onBus(promptId)).toHaveLength(1);
  });
});

describe('the sweep', () => {
  it('puts an event the bus refused on the bus again, with the same id, until it is acknowledged', async () => {
    bus = mockClient(EventBridgeClient);
    bus.on(PutEventsCommand).rejects(new Error('bus down'));
    await emitEvents(ws, [versionCreated()]);
    bus.restore();
    expect(onBus(promptId)).toEqual([]);

    await sweepEvents();
    const [first] = onBus(promptId);
    expect(first?.event_id).toMatch(/^ev_/);
    expect(await isPending(first!.event_id)).toBe(true);

    await acknowledgeEvent(ws, first!.event_id);
    await acknowledgeEvent(ws, first!.event_id); // idempotent
    await sweepEvents();
    expect(onBus(promptId)).toHaveLength(1);
    expect((await stored(first!.event_id))?.acknowledgedAt).toEqual(expect.any(String));
  });

  it('puts entries the bus answered as failed again', async () => {
    bus = mockClient(EventBridgeClient);
    bus.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure' }] });
    await emitEvents(ws, [versionCreated()]);
    bus.restore();
    await sweepEvents();
    expect(onBus(promptId)).toHaveLength(1);
  });

  it(`gives an event up after ${MAX_SWEEPS} sweeps`, async () => {
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    await emitEvents(ws, [versionCreated()]);
    const [detail] = onBus(promptId);
    for (let sweep = 0; sweep <= MAX_SWEEPS; sweep++) await sweepEvents();
    expect(onBus(promptId)).toHaveLength(1 + MAX_SWEEPS);
    expect(await isPending(detail!.event_id)).toBe(false);
    expect((await stored(detail!.event_id))?.abandonedAt).toEqual(expect.any(String));
    expect(errors).toHaveBeenCalledWith('Events abandoned after repeated sweeps', expect.anything());
    errors.mockRestore();
  });

  it('keeps the default redelivery delay when EVENT_REDELIVERY_AFTER_SECONDS is set but empty', async () => {
    process.env[EVENT_REDELIVERY_AFTER_ENV] = '';
    try {
      await emitEvents(ws, [versionCreated()]);
      const result = await sweepEvents();
      expect(onBus(promptId)).toHaveLength(1);
      expect(result).toEqual({ found: 0, put: 0, abandoned: 0 });
    } finally {
      process.env[EVENT_REDELIVERY_AFTER_ENV] = '0';
    }
  });

  it('counts an event acknowledged while the sweep runs as neither put nor abandoned', async () => {
    await emitEvents(ws, [versionCreated()]);
    const [detail] = onBus(promptId);
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const send = dynamo.send.bind(dynamo);
    // The fan-out acknowledges the event right after the sweep read the pending index.
    const spy = vi.spyOn(dynamo, 'send').mockImplementation((async (command: unknown) => {
      const answer = await send(command as Parameters<typeof send>[0]);
      if (command instanceof QueryCommand && command.input.IndexName === 'GSI1') {
        await acknowledgeEvent(ws, detail!.event_id);
      }
      return answer;
    }) as typeof dynamo.send);
    try {
      const result = await sweepEvents();
      expect(result.abandoned).toBe(0);
      expect(onBus(promptId)).toHaveLength(1);
      expect(errors).not.toHaveBeenCalled();
      expect((await stored(detail!.event_id))?.abandonedAt).toBeUndefined();
    } finally {
      spy.mockRestore();
      errors.mockRestore();
    }
  });

  it('does not count a sweep whose put the bus refused: a long bus outage loses no event', async () => {
    bus = mockClient(EventBridgeClient);
    bus.on(PutEventsCommand).rejects(new Error('bus down'));
    await emitEvents(ws, [versionCreated()]);
    const warnings = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    for (let sweep = 0; sweep <= MAX_SWEEPS; sweep++) await sweepEvents();
    warnings.mockRestore();
    bus.restore();
    expect(onBus(promptId)).toEqual([]);

    await sweepEvents();
    const [detail] = onBus(promptId);
    expect(detail?.event_id).toMatch(/^ev_/);
    expect((await stored(detail!.event_id))?.abandonedAt).toBeUndefined();
  });

  it('acknowledging an unknown event is fine', async () => {
    await expect(acknowledgeEvent(ws, 'ev_unknown')).resolves.toBeUndefined();
  });
});
