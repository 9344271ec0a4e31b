import type { RequestLogRecord } from '#shared/request-logs/record.ts';
import { startLlmStub } from '../local/llm-stub.ts';
import { type BenchRow, countDynamoCalls, fmt, percentile } from './support.ts';

/**
 * Replays on the local runtime against the loopback stub provider (the deployment's key and base URL
 * point at it): what a replay adds to the provider call itself (wall time minus the call's latency, the
 * stub answering at once), the DynamoDB calls of one replay, and a 200-log batch at the default
 * concurrency of 4 against a stub answering in 50 ms, against the ideal 200 x 50 ms / 4.
 */
const SAMPLES = 200;
const BATCH_LOGS = 200;
const STUB_LATENCY_MS = 50;

export async function benchReplay(
  workspaceId: number,
  service: { messaging: { idle(): Promise<void> } },
): Promise<BenchRow[]> {
  const stub = await startLlmStub();
  process.env.OPENAI_API_KEY = 'sk-bench-replay-0001';
  process.env.OPENAI_BASE_URL = stub.openaiBaseUrl;
  try {
    const { trackRequest, trackRequestBodySchema } = await import('#shared/request-logs/track-request.ts');
    const { replayRequestLog } = await import('#shared/replay/replay.ts');
    const { startReplayBatch, getReplayBatch, batchConcurrency } = await import('#shared/replay/batch.ts');
    const { documentClient } = await import('#shared/platform/dynamo.ts');
    const { requestLogsByIds } = await import('#shared/request-logs/repository.ts');
    const { replayIdsOf } = await import('#shared/replay/links.ts');

    const track = async (text: string) => {
      const now = Date.now();
      const raw = {
        function_name: 'openai.chat.completions.create',
        provider_type: 'openai',
        kwargs: { model: 'gpt-4o', messages: [{ role: 'user', content: text }], temperature: 0 },
        request_response: {
          object: 'chat.completion',
          model: 'gpt-4o',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' } }],
          usage: { prompt_tokens: 3, completion_tokens: 1 },
        },
        request_start_time: new Date(now - 500).toISOString(),
        request_end_time: new Date(now).toISOString(),
      };
      return (await trackRequest(workspaceId, trackRequestBodySchema.parse(raw), raw)).request_id;
    };

    // Overhead: a replay's wall time less its provider call (the new log's latency), warm.
    const original = await track('benchmark question');
    for (let i = 0; i < 20; i++) await replayRequestLog(workspaceId, original, {});
    const overheads: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const started = performance.now();
      const { record } = await replayRequestLog(workspaceId, original, {});
      overheads.push(performance.now() - started - (record.request_end_time - record.request_start_time));
    }

    const counter = countDynamoCalls(documentClient());
    counter.reset();
    await replayRequestLog(workspaceId, original, {});
    const calls = counter.total();
    const breakdown = counter.snapshot();

    // A batch of 200 logs whose provider answers in 50 ms.
    const ids: number[] = [];
    for (let i = 0; i < BATCH_LOGS; i++) ids.push(await track(`batch ${i} [[stub:slow=${STUB_LATENCY_MS}]]`));
    const auth = { workspaceId, userId: 1, userEmail: null, permissions: {} };
    const started = Date.now();
    const batch = await startReplayBatch(auth, { request_log_ids: ids } as never);
    await service.messaging.idle();
    const wall = Date.now() - started;
    const done = await getReplayBatch(workspaceId, batch.batch_id);
    if (done.status !== 'COMPLETE' || done.replayed !== BATCH_LOGS || done.failed) {
      throw new Error(`replay batch ended ${done.status}: ${done.replayed} replayed, ${done.failed} failed`);
    }
    const ideal = (BATCH_LOGS * STUB_LATENCY_MS) / batchConcurrency();
    // The calls as this process saw them (the stub shares its event loop and CPU with the service): the
    // ideal from them says how well the batch keeps its calls in flight, whatever the machine's load.
    const replays: RequestLogRecord[] = [];
    const replayIds = (await Promise.all(ids.map((id) => replayIdsOf(workspaceId, id)))).flat();
    for await (const records of requestLogsByIds(workspaceId, replayIds)) replays.push(...records);
    const callMs = replays.map((log) => log.request_end_time - log.request_start_time);
    const measuredIdeal = callMs.reduce((sum, ms) => sum + ms, 0) / batchConcurrency();

    return [
      {
        name: 'replay: overhead over the provider call p50 / p99 (ms, stub answering at once, local)',
        value: `${fmt(percentile(overheads, 50), 1)} / ${fmt(percentile(overheads, 99), 1)}`,
        target: 'p50 < 30',
      },
      {
        name: 'replay: DynamoDB calls per replay',
        value: `${calls} (${Object.entries(breakdown)
          .map(([name, n]) => `${name.replace('Command', '')} ${n}`)
          .join(', ')})`,
        target: '<= 4',
      },
      {
        name: `replay: batch of ${BATCH_LOGS} at concurrency ${batchConcurrency()}, stub ${STUB_LATENCY_MS} ms (wall ms incl. the dataset version / ideal)`,
        value: `${fmt(wall, 0)} / ${fmt(ideal, 0)} = ${fmt(wall / ideal)}x`,
        target: '< 1.5x',
      },
      {
        name: `replay: same batch, wall / ideal from the calls' measured latency (p50 ${fmt(percentile(callMs, 50), 0)} ms)`,
        value: `${fmt(wall, 0)} / ${fmt(measuredIdeal, 0)} = ${fmt(wall / measuredIdeal)}x`,
        target: '< 1.5x',
      },
    ];
  } finally {
    await stub.close();
  }
}
