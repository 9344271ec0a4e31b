import { exportTracesRoute } from '#shared/otlp/route.ts';

/**
 * POST /api/public/otel/v1/traces: the same export at Langfuse's path, keyed by
 * `Authorization: Basic base64(<anything>:<API key>)`, so Langfuse's exporter only changes its base URL.
 */
export const handler = exportTracesRoute('basic');
