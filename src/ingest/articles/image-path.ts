/**
 * Article images are published as relative paths only (docs/spec.md, Article: "a relative image
 * path"): the API's clients resolve them against the publisher's own asset host. An absolute URL
 * would point readers at a third-party host the licence may not cover, so it is dropped with a
 * note rather than published; so is anything that is not a clean path.
 */
export function resolveImage(value: unknown): { image: string; problem?: string } {
  if (value === undefined || value === null || value === '') return { image: '' };
  if (typeof value !== 'string') return { image: '', problem: 'image is not a path; published without an image' };
  const image = value.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(image) || image.startsWith('//')) {
    return { image: '', problem: `absolute image URL "${image}" dropped: only relative image paths are published` };
  }
  if (image.split('/').includes('..') || /[\\\s\u0000-\u001f]/.test(image)) {
    return { image: '', problem: `image path "${image}" is not a clean relative path; published without an image` };
  }
  return { image };
}
