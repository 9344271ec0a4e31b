/**
 * The table actions a function is granted, by its row's `table` access: the stack's IAM grants and the
 * local runtime's grant check read the same lists (this module imports no CDK, so the local runtime
 * starts without loading it).
 */
/** DynamoDB actions of read-only functions: point reads, batch reads and queries; never a Scan. */
export const TABLE_READ_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:DescribeTable',
] as const;
/** Writers add single-item and batch writes (ids are reserved with UpdateItem). */
export const TABLE_WRITE_ACTIONS = [
  ...TABLE_READ_ACTIONS,
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
] as const;
