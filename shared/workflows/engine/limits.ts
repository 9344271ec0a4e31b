/** Limits of workflow runs that the stack reads too (the bucket's lifecycle rule). */
export const EXECUTION_RETENTION_DAYS = 30;
export const INLINE_VALUE_LIMIT_BYTES = 64 * 1024;
/** Values and input variables over the inline limit live below this prefix of the bucket. */
export const EXECUTION_OBJECT_PREFIX = 'workflow-executions/';
