import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BenchRow, fmt, percentile } from './support.ts';

/**
 * Webhook delivery throughput on the local runtime: 1,000 events to 5 webhooks (5,000 deliveries)
 * through the bus rule, the fan-out and the delivery queue, to a loopback receiver that answers at once.
 * Event-to-delivery is the time from the event's `timestamp` to the receiver reading the request.
 */
export const BENCH_EVENTS = 1_000;
export const BENCH_WEBHOOKS = 5;

export async function benchWebhookDelivery(
  workspaceId: number,
  service: { messaging: { idle(): Promise<void> } },
): Promise<BenchRow[]> {
  const latencies: number[] = [];
  const seen = new Set<string>();
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const arrived = Date.now();
      seen.add(String(request.headers['webhook-id']));
      const { timestamp } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
      latencies.push(arrived - Date.parse(timestamp));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  process.env.OUTBOUND_ALLOWED_HOSTS = `127.0.0.1:${port}`;
  try {
    const { createWebhook } = await import('#shared/webhooks/webhooks.ts');
    const { emitEvents } = await import('#shared/events/emit.ts');
    const { forEachLimited } = await import('#shared/platform/concurrency.ts');
    for (let i = 0; i < BENCH_WEBHOOKS; i++) {
      await createWebhook(workspaceId, {
        url: `http://127.0.0.1:${port}/hook-${i}`,
        event_types: ['dataset_version_created_by_file'],
        is_active: true,
      });
    }
    const started = Date.now();
    const ids = Array.from({ length: BENCH_EVENTS }, (_, i) => i + 1);
    await forEachLimited(ids, 20, async (id) => {
      await emitEvents(workspaceId, [
        { type: 'dataset_version_created_by_file', details: { dataset_id: id, dataset_version_number: 1 } },
      ]);
    });
    await service.messaging.idle();
    const seconds = (Date.now() - started) / 1000;
    const expected = BENCH_EVENTS * BENCH_WEBHOOKS;
    if (seen.size !== expected) throw new Error(`Delivered ${seen.size} of ${expected}`);
    return [
      {
        name: `webhooks: deliveries per second (${BENCH_EVENTS} events x ${BENCH_WEBHOOKS} webhooks, local)`,
        value: fmt(expected / seconds, 0),
        target: 'report',
      },
      {
        name: 'webhooks: event to delivery p50 / p99 (ms, local)',
        value: `${fmt(percentile(latencies, 50), 0)} / ${fmt(percentile(latencies, 99), 0)}`,
        target: 'report',
      },
    ];
  } finally {
    delete process.env.OUTBOUND_ALLOWED_HOSTS;
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
}
