/**
 * ISO 3166-1 alpha-2 codes the calendar accepts, with the English name shown beside them.
 * Covers the G20 members and every country a provider currency maps to.
 *
 * EU is not an officially assigned ISO 3166-1 code but an "exceptionally reserved" one (reserved
 * at the request of the European Union). We use it for euro-area releases (ECB decisions,
 * euro-area HICP and GDP), named "Euro Area", because those events belong to no single country.
 */
export const COUNTRY_NAMES: Readonly<Record<string, string>> = {
  AR: 'Argentina',
  AU: 'Australia',
  BR: 'Brazil',
  CA: 'Canada',
  CH: 'Switzerland',
  CN: 'China',
  DE: 'Germany',
  ES: 'Spain',
  EU: 'Euro Area',
  FR: 'France',
  GB: 'United Kingdom',
  ID: 'Indonesia',
  IN: 'India',
  IT: 'Italy',
  JP: 'Japan',
  KR: 'South Korea',
  MX: 'Mexico',
  NZ: 'New Zealand',
  RU: 'Russia',
  SA: 'Saudi Arabia',
  SE: 'Sweden',
  NO: 'Norway',
  TR: 'Türkiye',
  US: 'United States',
  ZA: 'South Africa',
};

/** Other names curators commonly write, lower-cased; the table's own names are matched too. */
const ALIASES: Readonly<Record<string, string>> = {
  'united states of america': 'US',
  usa: 'US',
  'u.s.': 'US',
  uk: 'GB',
  'great britain': 'GB',
  britain: 'GB',
  korea: 'KR',
  'republic of korea': 'KR',
  eurozone: 'EU',
  'euro zone': 'EU',
  'euro area': 'EU',
  'european union': 'EU',
  turkey: 'TR',
  "people's republic of china": 'CN',
};

const BY_NAME: ReadonlyMap<string, string> = new Map([
  ...Object.entries(COUNTRY_NAMES).map(([code, name]) => [name.toLowerCase(), code] as const),
  ...Object.entries(ALIASES),
]);

export interface Country {
  code: string;
  name: string;
}

/** Resolves an alpha-2 code (any case) or an English country name; undefined when unknown. */
export function resolveCountry(value: string): Country | undefined {
  const trimmed = value.trim();
  const upper = trimmed.toUpperCase();
  const code = /^[A-Z]{2}$/.test(upper) && COUNTRY_NAMES[upper] ? upper : BY_NAME.get(trimmed.toLowerCase());
  const name = code ? COUNTRY_NAMES[code] : undefined;
  return code && name ? { code, name } : undefined;
}
