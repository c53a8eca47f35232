import { LOCALES, type Locale } from '../../model/article.js';

/** A bare language code maps to the one locale that serves it. */
const LANGUAGE_LOCALE: Record<string, Locale> = { en: 'en-US', ko: 'ko-KR', ja: 'ja-JP', zh: 'zh-CN' };

/** `ko-KR`, `ko_kr`, `KO-kr` and `ko` all mean ko-KR; anything else is not a served locale. */
export function normaliseLocale(value: string): Locale | undefined {
  const wanted = value.trim().replace('_', '-').toLowerCase();
  const exact = LOCALES.find((locale) => locale.toLowerCase() === wanted);
  return exact ?? LANGUAGE_LOCALE[wanted];
}
