import { compareText } from '../../lib/text-order.js';
import type { BuildNote } from '../../model/report.js';

/**
 * Tracking pixels: images in article content that exist to report each reader to a third party,
 * never to be seen. Feed services append one to every item (FeedBurner:
 * `<img src="https://feeds.feedburner.com/~r/…" height="1" width="1" alt=""/>`), so every client
 * that renders a published article would call the tracker. An image is a tracking pixel when
 *
 * - its width and height are both 0 or 1 pixel, as attributes (`width="1"`) or in its inline style
 *   (`width:1px!important`; the style wins, as in CSS), or
 * - its source is on a tracker's host below, or a subdomain of one: nothing those hosts serve is
 *   editorial (FeedBurner's `~ff/` "flare" buttons are images of the same host).
 */
export const TRACKER_HOSTS: readonly string[] = [
  'feeds.feedburner.com', // FeedBurner: ~r/ pixels, ~ff/ flare buttons
  'feedproxy.google.com', // FeedBurner's redirect host
  'feedpress.me', // FeedPress
  'feeds.feedblitz.com', // FeedBlitz
  'pixel.wp.com', // WordPress.com and Jetpack stats
  'stats.wordpress.com',
  'google-analytics.com', // www., ssl.
  'pixel.quantserve.com', // Quantcast
];

/** The host a tracking pixel calls ('' for a relative address), or undefined when the image is no tracking pixel. */
export function trackingPixelHost(attribs: Readonly<Record<string, string>>): string | undefined {
  const src = (attribs.src ?? '').trim();
  // No address, or one that calls nobody (data:), or one sanitising refuses anyway (javascript:): no tracker.
  if (src === '' || (/^[a-z][a-z0-9+.-]*:/i.test(src) && !/^https?:/i.test(src))) return undefined;
  const host = hostOf(src);
  if (host !== undefined && TRACKER_HOSTS.some((tracker) => host === tracker || host.endsWith(`.${tracker}`))) return host;
  const width = styleValue(attribs.style, 'width') ?? attribs.width;
  const height = styleValue(attribs.style, 'height') ?? attribs.height;
  return isAtMostOnePixel(width) && isAtMostOnePixel(height) ? (host ?? '') : undefined;
}

const ONE_PIXEL_OR_NONE = /^\s*[01](?:\.0*)?\s*(?:px)?\s*(?:!\s*important)?\s*$/i;

function isAtMostOnePixel(value: string | undefined): boolean {
  return value !== undefined && ONE_PIXEL_OR_NONE.test(value);
}

/** The last declaration of a property in an inline style, as CSS applies it. */
function styleValue(style: string | undefined, property: 'width' | 'height'): string | undefined {
  let value: string | undefined;
  for (const declaration of (style ?? '').split(';')) {
    const colon = declaration.indexOf(':');
    if (colon !== -1 && declaration.slice(0, colon).trim().toLowerCase() === property) value = declaration.slice(colon + 1);
  }
  return value;
}

/** The lower-case host of an absolute or protocol-relative http(s) URL; undefined for a relative one. */
function hostOf(src: string): string | undefined {
  try {
    const url = new URL(src.startsWith('//') ? `https:${src}` : src);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.hostname.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The build note of one source file whose content lost tracking pixels: how many, from how many
 * items, and from which hosts. Routine: a feed service adds one to every item of every build.
 */
export function trackingPixelNote(source: string, hosts: readonly string[], items: number): BuildNote {
  const byHost = new Map<string, number>();
  for (const host of hosts) byHost.set(host, (byHost.get(host) ?? 0) + 1);
  const from = [...byHost]
    .sort(([a], [b]) => compareText(a, b))
    .map(([host, count]) => `${host === '' ? 'a relative address' : host}: ${count}`)
    .join(', ');
  return {
    source,
    message: `removed ${hosts.length} tracking pixel(s) from ${items} item(s) (images from ${from})`,
    routine: 'file(s) with tracking pixels removed',
  };
}
