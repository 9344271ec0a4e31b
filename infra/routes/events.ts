import type { ScheduleDef } from '../route-types.ts';

/** The sweep of the durable events (shared/events/sweep.ts). */
export const EVENT_SCHEDULES: Readonly<Record<string, ScheduleDef>> = {
  'event-sweep': {
    handler: 'functions/scheduled/event-sweep.ts',
    everyMinutes: 2,
    description: 'puts unacknowledged events on the bus again',
    table: 'write',
    events: true,
    timeoutSeconds: 60,
  },
};
