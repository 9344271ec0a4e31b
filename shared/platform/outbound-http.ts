/**
 * CONTRACT STUB (the outbound-client helper replaces this file): the one guarded client for every URL a
 * user supplied. See DESIGN.md section 7.
 */
export type OutboundErrorCode = 'invalid_url' | 'refused' | 'timeout' | 'too_large' | 'network';

export class OutboundError extends Error {
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export interface OutboundRequest {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Default 15 000 (or OUTBOUND_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Default 1 MiB. */
  maxResponseBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export async function outboundRequest(_request: OutboundRequest): Promise<OutboundResponse> {
  throw new OutboundError('network', 'not implemented yet');
}

/** Static check of a URL a user registers (no DNS): scheme, userinfo, IP literal in a refused range. */
export function checkOutboundUrl(_url: string): { ok: true; url: URL } | { ok: false; reason: string } {
  return { ok: false, reason: 'not implemented yet' };
}
