/** CONTRACT STUB (the integrator fills this in): the durable event items. */

/**
 * Marks an event as received by its consumer (the webhook fan-out), so the sweep stops putting it on
 * the bus again. Idempotent; an unknown or already acknowledged event is fine.
 */
export async function acknowledgeEvent(_workspaceId: number, _eventId: string): Promise<void> {}
