/**
 * Names of the local service that tools outside it need (`npm run keys`), in a module of their own so
 * that reading them does not load the whole runtime.
 */

/** Table and bucket name of the local service unless TABLE_NAME / BUCKET_NAME say otherwise. */
export const LOCAL_TABLE_NAME = 'promptops-local';
/** Written while the service runs, so `npm run keys` finds the local table without flags. */
export const ENDPOINTS_FILE = 'local-endpoints.json';
