import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { BINARY_MEDIA_TYPES } from '#shared/platform/config.ts';

/**
 * The dashboard's files as the serving route answers them (functions/http/ui-assets.ts, the same
 * behind the local gateway and in AWS). `dist` is ui/build.ts's output: `index.html` and
 * `assets/<name>-<hash>.<ext>`.
 *
 * - `/ui/assets/<file>`: the built file, `immutable` for a year (its name changes with its content); an
 *   unknown asset is a 404 (never the page: a script URL answered with HTML breaks in confusing ways).
 * - any other path under `/ui/`: index.html, `no-cache`, so a deep link (`/ui/requests?status=ERROR`)
 *   reloads into the same view and a deploy is picked up at once.
 * - every answer, errors included, carries the dashboard's security headers.
 */
/** An http(s) origin and nothing else (no path, no space or `;` that could add a directive). */
const ORIGIN = /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$/i;

/**
 * The dashboard's CSP. `connect-src` names the API's origin (`'self'`) and, given one, the origin of the
 * bucket's presigned URLs, where the Datasets screen PUTs a file (`uploadOrigin`, ENV.uploadOrigin: the
 * stack passes the bucket's regional endpoint, the local runtime its S3 emulator). A value that is not a
 * bare http(s) origin is left out: the page then cannot upload, and nothing else is loosened.
 */
export function contentSecurityPolicy(uploadOrigin?: string): string {
  const connect = uploadOrigin && ORIGIN.test(uploadOrigin) ? `'self' ${uploadOrigin}` : "'self'";
  return (
    `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src ${connect}; ` +
    "base-uri 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'"
  );
}

/** The CSP of answers that are not the page (the redirects to it): no upload origin. */
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

/** The headers every dashboard answer carries, errors included. */
export function securityHeaders(uploadOrigin?: string): Readonly<Record<string, string>> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(uploadOrigin),
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
  };
}

export const SECURITY_HEADERS = securityHeaders();

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const NO_CACHE = 'no-cache';
/** Smaller answers are not worth compressing. */
const MIN_GZIP_BYTES = 1024;
/** In index.html (ui/build.ts's ASSETS_PLACEHOLDER): the relative path to `assets/`, per request depth. */
const ASSETS_PLACEHOLDER = '%ASSETS%';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json',
  html: 'text/html; charset=utf-8',
};

export interface SiteRequest {
  /** The path after `/ui/` (`assets/main-X.js`, `requests`, `prompts/a/b`), still percent-encoded. */
  path: string;
  headers: Record<string, string | undefined>;
}

export interface SiteAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

interface AssetFile {
  body: Buffer;
  gzipped: Buffer | undefined;
  contentType: string;
}

/** The built files of one `dist` folder, read once (assets never change under a name). */
export class DashboardSite {
  private readonly dist: string;
  private readonly assets = new Map<string, AssetFile>();
  private assetNames: ReadonlySet<string> = new Set();

  constructor(dist: string) {
    this.dist = dist;
    this.listAssets();
  }

  /**
   * The files of `assets/`: only these names are ever read (no path from a request reaches the file
   * system). Listed again when a name is missing: locally `npm run ui:build` may rebuild while the
   * service runs; in AWS the asset never changes and a miss costs one readdir.
   */
  private listAssets(): void {
    try {
      this.assetNames = new Set(readdirSync(join(this.dist, 'assets')));
    } catch {
      this.assetNames = new Set();
    }
  }

  answer(request: SiteRequest): SiteAnswer {
    const segments = request.path.split('/');
    if (segments[0] === 'assets') {
      const name = segments.length === 2 ? (segments[1] ?? '') : '';
      const asset = this.asset(name);
      if (!asset) return notFound();
      return this.compressible(request, asset.body, asset.contentType, IMMUTABLE, () => {
        asset.gzipped ??= gzipSync(asset.body, { level: 9 });
        return asset.gzipped;
      });
    }
    let page: Buffer;
    try {
      page = readFileSync(join(this.dist, 'index.html'));
    } catch {
      return notBuilt();
    }
    // From /ui/requests the assets are at `assets/`, from /ui/prompts/x at `../assets/`: relative URLs
    // work under any mount (API Gateway's /v1 stage prefix, a custom domain's base path).
    const depth = Math.max(0, segments.length - 1);
    const prefix = depth === 0 ? '.' : Array(depth).fill('..').join('/');
    const body = Buffer.from(page.toString('utf8').replaceAll(ASSETS_PLACEHOLDER, `${prefix}/assets`));
    return this.compressible(request, body, CONTENT_TYPES.html!, NO_CACHE, () => gzipSync(body));
  }

  private asset(name: string): AssetFile | undefined {
    if (!this.assetNames.has(name)) this.listAssets();
    if (!this.assetNames.has(name)) return undefined;
    let asset = this.assets.get(name);
    if (!asset) {
      const extension = name.slice(name.lastIndexOf('.') + 1);
      asset = {
        body: readFileSync(join(this.dist, 'assets', name)),
        gzipped: undefined,
        contentType: CONTENT_TYPES[extension] ?? 'application/octet-stream',
      };
      this.assets.set(name, asset);
    }
    return asset;
  }

  /**
   * gzip when the client accepts it and API Gateway will pass the bytes through: it decodes a base64
   * answer to bytes only when the request's first Accept type is one of the API's binary media types
   * (BINARY_MEDIA_TYPES); otherwise it would send the base64 text as is, so the answer stays plain.
   */
  private compressible(
    request: SiteRequest,
    body: Buffer,
    contentType: string,
    cacheControl: string,
    gzipped: () => Buffer,
  ): SiteAnswer {
    const headers = { 'Content-Type': contentType, 'Cache-Control': cacheControl, Vary: 'Accept-Encoding' };
    const accepts = acceptsGzip(header(request.headers, 'accept-encoding'));
    if (accepts && body.length >= MIN_GZIP_BYTES && gatewayPassesBytes(header(request.headers, 'accept'))) {
      return { status: 200, headers: { ...headers, 'Content-Encoding': 'gzip' }, body: gzipped() };
    }
    return { status: 200, headers, body };
  }
}

/** A request header by name, whatever its case. */
export function header(headers: SiteRequest['headers'], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

/** `gzip` listed with a non-zero q (`gzip;q=0` refuses it). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return (acceptEncoding ?? '').split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** Whether the request's first Accept media type is a binary media type of the API. */
export function gatewayPassesBytes(accept: string | undefined, binaryTypes = BINARY_MEDIA_TYPES): boolean {
  const first = accept?.split(',')[0]?.split(';')[0]?.trim().toLowerCase();
  return first !== undefined && first !== '' && binaryTypes.includes(first);
}

const errorAnswer = (status: number, message: string, error: string): SiteAnswer => ({
  status,
  headers: { 'Content-Type': 'application/json', 'Cache-Control': NO_CACHE },
  body: Buffer.from(JSON.stringify({ success: false, message, error })),
});
const notFound = () => errorAnswer(404, 'No such dashboard file', 'not_found');
const notBuilt = () => errorAnswer(500, 'The dashboard is not built: run npm run ui:build', 'internal_error');

/** Where `GET /` and `GET /ui` send a browser: the dashboard's first screen. */
export const DASHBOARD_HOME = '/ui/requests';
/** The paths the gateway redirects to DASHBOARD_HOME (`/ui/` arrives as `/ui` in API Gateway). */
export const DASHBOARD_REDIRECT_PATHS = ['/', '/ui'] as const;
