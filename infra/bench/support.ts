import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Shared pieces of `npm run bench`: result rows, percentiles and a DynamoDB call counter. */
export interface BenchRow {
  name: string;
  value: string;
  target: string;
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/**
 * Counts the commands a document client sends, by DynamoDB operation (PutItemCommand, QueryCommand, ...).
 * Each counted command is one DynamoDB round trip (retries aside).
 */
export function countDynamoCalls(client: DynamoDBDocumentClient) {
  const counts = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => (args) => {
      const name = String(context.commandName ?? 'unknown');
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: `benchCallCounter${Math.random()}` },
  );
  return {
    reset: () => counts.clear(),
    total: () => [...counts.values()].reduce((sum, n) => sum + n, 0),
    get: (name: string) => counts.get(name) ?? 0,
    snapshot: () => Object.fromEntries(counts),
  };
}

export const fmt = (n: number, digits = 2) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
