import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import type { LogAttributes, LogItemExtraInput, LogItemMessage } from '@aws-lambda-powertools/logger/types';
import type { Context } from 'aws-lambda';

/**
 * The keys of the invocation (or SQS record) running now. Locally every function runs in one process,
 * many invocations at once, so a key appended for the whole process would land on another request's
 * lines: keys live in async-local storage, which serves one invocation per process in AWS just as well.
 */
const invocationKeys = new AsyncLocalStorage<LogAttributes>();

/**
 * Powertools' logger, with the current invocation's keys on every line. `appendKeys` inside an
 * invocation adds to that invocation's keys only (as Powertools does under Lambda's multi-concurrency).
 */
class InvocationLogger extends Logger {
  override appendKeys(attributes: LogAttributes): void {
    const keys = invocationKeys.getStore();
    if (keys) Object.assign(keys, attributes);
    else super.appendKeys(attributes);
  }

  protected override createAndPopulateLogItem(
    level: number,
    input: LogItemMessage,
    extraInput: LogItemExtraInput,
  ) {
    const keys = invocationKeys.getStore();
    // First, so that a key the line itself gives wins (Powertools reads any mix of objects and errors).
    const withKeys = keys ? ([keys, ...extraInput] as LogItemExtraInput) : extraInput;
    return super.createAndPopulateLogItem(level, input, withKeys);
  }
}

/**
 * The one structured logger. Never log an event, a header map or a body: with a key authorizer they
 * carry the API key.
 */
export const logger: Logger = new InvocationLogger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'promptops',
});

/** Runs `work` with these keys (and those of the invocation around it) on every line it logs. */
export function withLogKeys<T>(keys: LogAttributes, work: () => Promise<T>): Promise<T> {
  return invocationKeys.run({ ...invocationKeys.getStore(), ...keys }, work);
}

/** A handler whose event may be left out (a schedule's) may be called without it, as tests do. */
type Invocation<E, R> = undefined extends E
  ? (event?: E, context?: Context) => Promise<R>
  : (event: E, context?: Context) => Promise<R>;

/**
 * A Lambda handler whose every log line carries the invocation's request id (`function_request_id`, as
 * Powertools' `injectLambdaContext` names it) and the keys `keysOf` reads from the event (ids only).
 */
export function loggedHandler<E, R>(
  handler: (event: E, context: Context) => Promise<R>,
  keysOf?: (event: E) => LogAttributes,
): Invocation<E, R> {
  return ((event: E, context?: Context) =>
    withLogKeys({ function_request_id: context?.awsRequestId, ...keysOf?.(event) }, () =>
      handler(event, context as Context),
    )) as Invocation<E, R>;
}
