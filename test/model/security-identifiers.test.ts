import { describe, expect, it } from 'vitest';
import {
  cusipCheckDigit,
  isValidCusip,
  isValidFigi,
  isValidIsin,
  locateSecurityIdentifiers,
  stripSecurityIdentifiers,
} from '../../src/model/security-identifiers.js';

const found = (text: string) => locateSecurityIdentifiers(text).map((span) => `${span.kind} ${span.value}`);

describe('check digits', () => {
  it.each([
    ['03783310', 0], // Apple
    ['59491810', 4], // Microsoft
    ['88160R10', 1], // Tesla
    ['92937A10', 2], // WPP ADR
    ['02079K30', 5], // Alphabet class A
  ])('computes the CUSIP check digit of %s as %i', (base, digit) => {
    expect(cusipCheckDigit(base)).toBe(digit);
    expect(isValidCusip(`${base}${digit}`)).toBe(true);
    expect(isValidCusip(`${base}${(digit + 1) % 10}`)).toBe(false);
  });

  it('uses the values * = 36, @ = 37 and # = 38 of private placement numbers, and refuses other characters', () => {
    // 36 at an odd position adds 3+6; 38 doubled at an even one is 76: 7+6.
    expect(cusipCheckDigit('1*000000')).toBe((10 - ((1 + 3 + 6) % 10)) % 10);
    expect(cusipCheckDigit('0#000000')).toBe((10 - ((7 + 6) % 10)) % 10);
    expect(cusipCheckDigit('0@000000')).toBe((10 - ((7 + 4) % 10)) % 10);
    expect(cusipCheckDigit('0a000000')).toBeNull();
    expect(cusipCheckDigit('0000000')).toBeNull();
  });

  it('checks ISINs with the Luhn test over letters as numbers', () => {
    expect(['US0378331005', 'US92937A1025', 'US02079K3059', 'GB00BH4HKS39'].map(isValidIsin)).toEqual([true, true, true, true]);
    expect(['US0378331006', 'US037833100', 'us0378331005'].map(isValidIsin)).toEqual([false, false, false]);
  });

  it('checks FIGIs: BBG, eight digits or consonants, and the double-add-double check digit', () => {
    expect(['BBG000B9XRY4', 'BBG000BPH459', 'BBG009S39JX6'].map(isValidFigi)).toEqual([true, true, true]);
    expect(['BBG000B9XRY5', 'BBG000A9XRY4', 'ABC000B9XRY4'].map(isValidFigi)).toEqual([false, false, false]);
  });
});

describe('identifiers in text', () => {
  it.each([
    ['WPP PLC NEW ADR ISIN#US92937A1025', 'ISIN US92937A1025'],
    ['APPLE INC CUSIP: 037833100', 'CUSIP 037833100'],
    ['APPLE INC CUSIP:037833100', 'CUSIP 037833100'],
    ['APPLE INC (US0378331005)', 'ISIN US0378331005'],
    ['COM/88160R101', 'CUSIP 88160R101'],
    ['cusip=037833100', 'CUSIP 037833100'],
    ['ISHARES TR CORE S&P500 ETF CUSIP464287200', 'CUSIP 464287200'],
    ['TESLA INC88160R101', 'CUSIP 88160R101'],
    ['APPLE INC ISINUS0378331005', 'ISIN US0378331005'],
    ['ALPHABET INC FIGI BBG009S39JX6', 'FIGI BBG009S39JX6'],
    ['MICROSOFT CORP|BBG000BPH459', 'FIGI BBG000BPH459'],
    ['APPLE INC CUSIP 037833 10 0', 'CUSIP 037833 10 0'],
    ['APPLE INC 037833-10-0', 'CUSIP 037833-10-0'],
    ['APPLE INC isin us0378331005', 'ISIN us0378331005'],
    ['APPLE INC cusip: 037833100', 'CUSIP 037833100'],
    ['APPLE INC US0378331005-ADR', 'ISIN US0378331005'],
  ])('finds the identifier glued into %j', (text, expected) => {
    expect(found(text)).toEqual([expected]);
  });

  it('does not take ordinary words and numbers for identifiers', () => {
    for (const text of [
      'BERKSHIRE HATHAWAY INC DEL CL B',
      'SPDR S&P 500 ETF TR TR UNIT',
      'NOTE 0.500% 3/1',
      'Shares rose to 123456788 units', // a 9-digit number with a wrong check digit
      'LAKESIDE PARTNERS LP (LEI 5493001KJTIIGC8Y1R12)', // an LEI is 20 characters
      'story-037833100', // inside a hyphenated word
      'PRECISIONUS0378331005', // "ISIN" inside a word is no label
      'ABCDEFGHI0',
      'Call 037833 10 0 today', // spaced digits without a label
      '037833100-A', // digits joined to a word
      'see us0378331005', // lower case without a label
    ]) {
      expect(found(text), text).toEqual([]);
    }
  });

  it('in a link, skips an all-digit page number unless a label names it, but finds ISINs and FIGIs', () => {
    expect(found('https://example.com/story/037833100')).toEqual([]);
    expect(found('<a href="https://example.com/p/037833100">x</a>')).toEqual([]);
    expect(found('https://example.com/quote?cusip=037833100')).toEqual(['CUSIP 037833100']);
    expect(found('https://example.com/isin/US0378331005')).toEqual(['ISIN US0378331005']);
    expect(found('https://www.openfigi.com/id/BBG000B9XRY4')).toEqual(['FIGI BBG000B9XRY4']);
    // The same number outside the link is a token as before.
    expect(found('see https://example.com/story/1 and 037833100')).toEqual(['CUSIP 037833100']);
  });
});

describe('stripping identifiers from a name', () => {
  it.each([
    ['WPP PLC NEW ADR ISIN#US92937A1025', 'WPP PLC NEW ADR'],
    ['APPLE INC CUSIP: 037833100', 'APPLE INC'],
    ['APPLE INC (US0378331005)', 'APPLE INC'],
    ['APPLE INC (CUSIP: 037833100)', 'APPLE INC'],
    ['APPLE INC [ISIN US0378331005] COM', 'APPLE INC COM'],
    ['COM/88160R101', 'COM'],
    ['MICROSOFT CORP FIGI=BBG000BPH459', 'MICROSOFT CORP'],
    ['CL A 02079K305 ISIN US02079K3059', 'CL A'],
    ['037833100', ''],
    ['APPLE INC CUSIP 037833 10 0', 'APPLE INC'],
    ['APPLE INC 037833-10-0 COM', 'APPLE INC COM'],
    ['APPLE INC isin us0378331005', 'APPLE INC'],
    ['APPLE INC US0378331005-ADR', 'APPLE INC ADR'],
  ])('%j -> %j', (name, expected) => {
    expect(stripSecurityIdentifiers(name).name).toBe(expected);
  });

  it('returns a name without identifiers unchanged, and says what it removed', () => {
    expect(stripSecurityIdentifiers('BERKSHIRE HATHAWAY INC DEL')).toEqual({ name: 'BERKSHIRE HATHAWAY INC DEL', removed: [] });
    expect(stripSecurityIdentifiers('WPP PLC NEW ADR ISIN#US92937A1025').removed).toEqual([
      { kind: 'ISIN', value: 'US92937A1025', start: 21, end: 33 },
    ]);
  });
});
