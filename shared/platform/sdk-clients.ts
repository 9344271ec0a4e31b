/**
 * An AWS SDK client without the SDK's logger middleware. Our clients are given no logger (the
 * service's own logger says what matters), yet that middleware copies every command's input and output
 * through the sensitive-data filter, a walk of the command's schema, for the no-op logger to drop:
 * about 2% of the workflow node worker's CPU, spent on every DynamoDB and SQS call for nothing.
 */
export function withoutSdkLogger<C extends { middlewareStack: { remove(name: string): boolean } }>(
  client: C,
): C {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}
