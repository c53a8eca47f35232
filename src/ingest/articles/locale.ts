import { LOCALES, type Locale } from '../../model/article.js';

/** A bare language code maps to the one locale that serves it. */
const LANGUAGE_LOCALE: Record<string, Locale> = { en: 'en-US', ko: 'ko-KR', ja: 'ja-JP', zh: 'zh-CN' };

/** `ko-KR`, `ko_kr`, `KO-kr` and `ko` all mean ko-KR; anything else is not a served locale. */
export function normaliseLocale(value: string): Locale | undefined {
  const wanted = value.trim().replace('_', '-').toLowerCase();
  const exact = LOCALES.find((locale) => locale.toLowerCase() === wanted);
  return exact ?? LANGUAGE_LOCALE[wanted];
}

/**
 * The locale a file's folder names, e.g. `articles/en-US/post.md` -> en-US: the innermost folder
 * below `articles/` whose name is a served locale (or its bare language, `ko/`).
 */
function folderLocale(relativePath: string): { locale: Locale; folder: string } | undefined {
  const folders = relativePath.split('/').slice(0, -1);
  for (let i = folders.length - 1; i >= 1; i--) {
    const locale = normaliseLocale(folders[i]!);
    if (locale !== undefined) return { locale, folder: folders.slice(0, i + 1).join('/') };
  }
  return undefined;
}

/** `{ folderLocale }` for a draft, or nothing when the folder names no locale. */
export function folderLocaleOf(relativePath: string): { folderLocale?: { locale: Locale; folder: string } } {
  const found = folderLocale(relativePath);
  return found === undefined ? {} : { folderLocale: found };
}
