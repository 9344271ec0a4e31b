import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one structured logger. Never log an event, a header map or a body: with a key authorizer they
 * carry the API key.
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'promptops' });
