import { describe, expect, it } from 'vitest';
import { ParameterProblem } from '../../src/serve/api-error.js';
import { compileParameterValidator } from '../../src/serve/parameter-validation.js';
import { InvalidEncoding, parseQueryString } from '../../src/serve/query-string.js';

const schema = {
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 }, locale: { type: 'string', enum: ['en-US', 'de-DE'] } },
};

describe('a query string seen again', () => {
  it('parses to the same frozen object, which cannot be changed', () => {
    const first = parseQueryString('limit=5&locale=en-US');
    expect(parseQueryString('limit=5&locale=en-US')).toBe(first);
    expect(first).toEqual({ limit: '5', locale: 'en-US' });
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      (first as Record<string, unknown>).limit = '6';
    }).toThrow(TypeError);
    // Repeated names give a frozen array too: nothing handed out twice can be changed.
    const repeated = parseQueryString('limit=1&limit=2');
    expect(repeated.limit).toEqual(['1', '2']);
    expect(Object.isFrozen(repeated.limit)).toBe(true);
  });

  it('parses a long query string afresh every time (nothing is kept for it)', () => {
    const long = `locale=${'x'.repeat(300)}`;
    const first = parseQueryString(long);
    expect(parseQueryString(long)).not.toBe(first);
    expect(Object.isFrozen(first)).toBe(false);
    expect(first).toEqual({ locale: 'x'.repeat(300) });
  });

  it('keeps a bounded number: thousands of distinct query strings still parse right', () => {
    for (let i = 0; i < 3000; i++) expect(parseQueryString(`limit=${i}`)).toEqual({ limit: String(i) });
    expect(parseQueryString('limit=%FF').limit).toBeInstanceOf(InvalidEncoding);
  });

  it('validates to the same frozen value with its defaults, and refuses anew each time', () => {
    const validate = compileParameterValidator(schema);
    const query = parseQueryString('locale=de-DE');
    const first = validate(query);
    expect(first).toEqual({ value: { locale: 'de-DE', limit: 20 } });
    expect(validate(query)).toBe(first);
    expect('value' in first && Object.isFrozen(first.value)).toBe(true);

    const bad = parseQueryString('limit=0');
    const refused = validate(bad);
    const again = validate(bad);
    if (!('error' in refused) || !('error' in again)) throw new Error('limit=0 must be refused');
    expect(refused.error).toBeInstanceOf(ParameterProblem);
    expect(refused.error.message).toMatch(/limit/);
    expect(again.error).not.toBe(refused.error);

    // An object that is not the parser's (path parameters) is validated on every call.
    const fresh = { limit: '7' };
    const one = validate(fresh);
    expect(one).toEqual({ value: { limit: 7 } });
    expect(validate(fresh)).not.toBe(one);
  });
});
