/**
 * Provider weekly exports name the currency a release moves, not the country. Each currency
 * below belongs to one economy; "All" (global events) and anything else cannot be placed on a
 * country and is rejected.
 */
const CURRENCY_COUNTRY: Readonly<Record<string, string>> = {
  USD: 'US',
  EUR: 'EU',
  GBP: 'GB',
  JPY: 'JP',
  KRW: 'KR',
  CNY: 'CN',
  CAD: 'CA',
  AUD: 'AU',
  NZD: 'NZ',
  CHF: 'CH',
};

export function countryOfCurrency(currency: string): string | undefined {
  return CURRENCY_COUNTRY[currency.trim().toUpperCase()];
}
