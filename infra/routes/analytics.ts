import type { ChangeConsumerDef, RouteDef } from '../route-types.ts';

/** Analytics: charts and breakdowns from the rollups, and the consumer that writes them. */
export const ANALYTICS_ROUTES: readonly RouteDef[] = [];

/** Consumers of the table's change feed, by name. */
export const ANALYTICS_CHANGE_CONSUMERS: Readonly<Record<string, ChangeConsumerDef>> = {
  'request-log-rollups': {
    handler: 'functions/changes/request-log-rollups.ts',
    sortKeys: ['RL'],
    // Large batches: a batch writes about nine items per bucket it touches, whatever its size.
    batchSize: 1000,
    batchingWindowSeconds: 5,
    maxRetries: 10,
    bisectOnError: true,
    timeoutSeconds: 120,
    memoryMb: 1024,
    table: 'write',
    // Images of logs kept in S3 before heads existed are read from their object.
    bucket: 'read',
  },
};
