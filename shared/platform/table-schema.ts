/**
 * The single DynamoDB table: key attribute names, secondary indexes and the TTL attribute. The CDK
 * stack and the local runtime's table setup both build the table from this one definition.
 */
export const TABLE_KEYS = { partition: 'PK', sort: 'SK' } as const;

export const TABLE_INDEXES = [
  { name: 'GSI1', partition: 'GSI1PK', sort: 'GSI1SK' },
  { name: 'GSI2', partition: 'GSI2PK', sort: 'GSI2SK' },
  { name: 'GSI3', partition: 'GSI3PK', sort: 'GSI3SK' },
] as const;

export type IndexName = (typeof TABLE_INDEXES)[number]['name'];

/** Epoch seconds after which DynamoDB may delete the item (drafts of failed jobs, idempotency marks). */
export const TTL_ATTRIBUTE = 'expiresAt';
