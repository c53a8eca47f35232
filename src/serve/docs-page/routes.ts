import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { FixedAsset } from '../fixed-asset.js';
import { DOCS_PAGE_HTML, DOCS_PAGE_SCRIPT } from './assets.js';

/**
 * Everything the page loads comes from this server: the browser is told so (a CSP with 'self' only),
 * so a Redoc that tried a CDN, a font service or any other host would be blocked, not obeyed.
 * Redoc writes its styles at run time ('unsafe-inline' styles) and runs its search in a blob: worker.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const MAX_AGE_SECONDS = 300;

/** Redoc's sidebar shows Redocly's logo from their CDN; the page uses an empty image of its own instead. */
const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const EMPTY_SVG = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E";

/**
 * `/docs`: an API reference for both profiles (Redoc, from the redoc package in node_modules, rendering
 * `/v1/openapi.json` or `/api/v1/openapi.json`). Exactly three fixed paths, each a public route:
 * nothing is looked up from the URL, so no path can reach a file outside these three.
 */
export function registerDocsPage(app: FastifyInstance): void {
  const redoc = readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8').replaceAll(
    REDOC_CDN_LOGO,
    EMPTY_SVG,
  );
  const assets = [
    new FixedAsset('/docs', 'text/html; charset=utf-8', DOCS_PAGE_HTML),
    new FixedAsset('/docs/docs.js', 'text/javascript; charset=utf-8', DOCS_PAGE_SCRIPT),
    new FixedAsset('/docs/redoc.standalone.js', 'text/javascript; charset=utf-8', redoc),
  ];
  for (const asset of assets) {
    app.get(asset.name, { config: { access: { access: 'public' } } }, async (request, reply) => {
      reply.headers({ 'Cache-Control': `public, max-age=${MAX_AGE_SECONDS}`, 'X-Content-Type-Options': 'nosniff' });
      if (asset.type.startsWith('text/html')) reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      return asset.send(request, reply);
    });
  }
}
