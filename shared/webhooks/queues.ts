import { MAX_DELIVERY_RECEIVES } from './backoff.ts';

/** Settings of the two webhook queues that both the route table and the workers read. */
export const WEBHOOK_QUEUE_SETTINGS = {
  fanout: { name: 'webhook-fanout', maxReceiveCount: 5, timeoutSeconds: 30, batchSize: 10 },
  /** First try + 6 retries; a batch of 10 posts at once, each bounded by the 15 s outbound timeout. */
  delivery: {
    name: 'webhook-delivery',
    maxReceiveCount: MAX_DELIVERY_RECEIVES,
    timeoutSeconds: 60,
    batchSize: 10,
  },
} as const;
