import { clip } from '#shared/platform/errors.ts';
import {
  OUTBOUND_DEFAULT_TIMEOUT_MS,
  OUTBOUND_MAX_URL_LENGTH,
  OutboundError,
} from '#shared/platform/outbound-http.ts';
import * as z from '#shared/platform/zod.ts';
import { headersSchema } from '#shared/webhooks/validation.ts';
import { type NodeExecutor, NodeFailure } from './types.ts';

/**
 * ENDPOINT: POSTs the node's inputs (input variables and dependency values, by name) as a JSON object
 * to `url` through the guarded outbound client, with the configured `headers`, and answers the response:
 * parsed when it is JSON, else its text. A non-2xx answer, a refused address (loopback, private,
 * link-local such as 169.254.169.254), no complete answer in time, or an answer over 1 MiB fails the
 * node. The URL is checked for its form when the workflow is saved and for its address when it runs.
 */
export const endpointConfigSchema = z.looseObject({
  url: z.string().check(
    z.trim(),
    z.maxLength(OUTBOUND_MAX_URL_LENGTH),
    z.refine((text) => /^https?:$/.test(URL.parse(text)?.protocol ?? ''), {
      message: 'must be an http or https URL',
    }),
  ),
  headers: z.nullish(headersSchema),
});
export type EndpointConfig = z.infer<typeof endpointConfigSchema>;

/** Kept between the request's timeout and the node's deadline. */
const DEADLINE_MARGIN_MS = 500;
/** How much of a failed answer `raw_error_message` keeps. */
const MAX_RAW_CHARS = 4096;

export const endpoint: NodeExecutor<EndpointConfig> = {
  config: endpointConfigSchema,
  async execute(config, context) {
    const timeoutMs = Math.min(
      OUTBOUND_DEFAULT_TIMEOUT_MS,
      context.deadline - Date.now() - DEADLINE_MARGIN_MS,
    );
    if (timeoutMs <= 0) throw new NodeFailure('ENDPOINT: no time left before the node deadline');
    let answer: Awaited<ReturnType<typeof context.ports.http.request>>;
    try {
      answer = await context.ports.http.request({
        url: config.url,
        method: 'POST',
        headers: {
          ...(config.headers ?? {}),
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify(context.inputs),
        timeoutMs,
      });
    } catch (error) {
      if (error instanceof OutboundError) throw new NodeFailure(`ENDPOINT request failed: ${error.message}`);
      throw error;
    }
    const text = answer.body.toString('utf8');
    if (answer.status < 200 || answer.status > 299) {
      throw new NodeFailure(`ENDPOINT answered ${answer.status}`, clip(text, MAX_RAW_CHARS));
    }
    const type = String(headerOf(answer.headers, 'content-type') ?? '');
    if (!/^application\/([\w.+-]+\+)?json\b/i.test(type.trim())) return text;
    if (text.trim() === '') return null;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new NodeFailure(
        'ENDPOINT answered a JSON content type with a body that is not JSON',
        clip(text, MAX_RAW_CHARS),
      );
    }
  },
};

function headerOf(headers: Record<string, string | string[] | undefined>, name: string) {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
