import { applyRequestLogChanges } from '#shared/analytics/change-consumer.ts';
import { changeFeedHandler } from '#shared/platform/change-feed.ts';

/** Change-feed consumer: request-log writes into the analytics rollups (docs/analytics.md). */
export const handler = changeFeedHandler(applyRequestLogChanges);
