import { describe, expectTypeOf, it } from 'vitest';
import type { Locale, Region } from '../../src/model/article.js';
import type { ParametersOf } from '../../src/serve/operation.js';
import type { PARAMETERS } from '../../src/serve/schemas/parameter-schemas.js';

// Checked by `npm run typecheck`: the types operations' plans receive follow the declared schemas.
type Of<K extends keyof typeof PARAMETERS> = ParametersOf<(typeof PARAMETERS)[K], 'erased'>;

describe('parameter types derived from the schemas', () => {
  it('keep enums as their values and make defaulted parameters present, as the validator does', () => {
    expectTypeOf<Of<'listArticles'>>().toEqualTypeOf<{ limit: number; cursor?: string; locale?: Locale; category?: string }>();
    expectTypeOf<Of<'listEconomicCalendar'>['from']>().toEqualTypeOf<string>();
    expectTypeOf<Of<'bListArticles'>['sort']>().toEqualTypeOf<'date_desc' | 'date_asc'>();
    expectTypeOf<Of<'bGetArticle'>>().toEqualTypeOf<{ region: Region }>();
    expectTypeOf<Of<'getArticleParams'>>().toEqualTypeOf<{ slug: string }>();
  });

  it('give the erased type for a plain JsonSchema (the registry)', () => {
    expectTypeOf<ParametersOf<Record<string, unknown>, 'erased'>>().toEqualTypeOf<'erased'>();
  });
});
