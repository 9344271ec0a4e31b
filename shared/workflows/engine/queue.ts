import * as z from '#shared/platform/zod.ts';

/**
 * Settings of the `workflow-node` queue that both the route table and the engine read: the worker's
 * timeout bounds a node's lease, the receive count bounds its attempts.
 */
export const WORKFLOW_NODE_QUEUE = {
  name: 'workflow-node',
  /** Deliveries of one message; the last one marks a node that keeps failing FAILED. */
  maxReceiveCount: 5,
  /** The worker's timeout: the longest node (an LLM call) must fit. */
  timeoutSeconds: 900,
  /** Records of a batch run at once. */
  batchSize: 10,
  /** Batches at once: in AWS the event source mapping's maximum concurrency, locally parallel batches. */
  maxConcurrency: 10,
} as const;

/**
 * A node's lease: the worker renews it every NODE_LEASE_RENEW_MS while it runs the node, so a lease
 * past this was lost with its worker (a crash, a `kill -9` of the local service), and the watchdog
 * sends the node again within minutes, not after the worker's whole timeout (the run's deadline).
 */
export const NODE_LEASE_MS = 90_000;
export const NODE_LEASE_RENEW_MS = 20_000;

/** Claims of one node before it is given up (a worker that dies on it every time). */
export const MAX_NODE_ATTEMPTS = WORKFLOW_NODE_QUEUE.maxReceiveCount;

/** One message per ready node: a pointer, never a value. */
export const nodeMessageSchema = z.object({
  v: z.literal(1),
  type: z.literal('workflow-node'),
  ws: z.int(),
  executionId: z.int(),
  workflowId: z.int(),
  versionNumber: z.int(),
  node: z.string(),
  /**
   * Sent by the node's only predecessor, now final, which did not count itself on the node: the claim
   * does (a write saved on every such node). `taken`: whether the predecessor took its edge to the node.
   */
  after: z.optional(z.object({ node: z.string(), taken: z.boolean() })),
});
export type NodeMessage = z.infer<typeof nodeMessageSchema>;
