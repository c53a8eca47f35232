import type { RegisteredSource } from '../../../src/ingest/articles/source-registry.js';

/** A registered source for feed readers called directly, and a feed file of it. */
export const FEED_SOURCE = {
  id: 'harbor-wire',
  locale: 'en-US',
  rights: { license: 'Syndication Agreement', holder: 'Harbor Wire Media LLC', reuse: 'with-attribution' },
  attribution: { source: 'Harbor Wire', url: 'https://www.harborwire.example/', text: 'Used under license.' },
} as RegisteredSource;

export function feedFile(text: string, name = 'wire.xml') {
  return { relativePath: `articles/feeds/${name}`, content: Buffer.from(text) };
}
