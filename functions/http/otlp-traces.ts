import { exportTracesRoute } from '#shared/otlp/route.ts';

/** POST /v1/traces: OTLP/HTTP trace exports (protobuf or JSON, maybe gzipped), keyed by X-API-KEY. */
export const handler = exportTracesRoute('header');
