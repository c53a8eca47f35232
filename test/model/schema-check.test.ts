import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { DATASET_RESOURCES, DATASETS } from '../../src/model/dataset.js';
import { resourceJsonSchema } from '../../src/model/json-schema.js';
import { checkResourceSchema, describeSchemaProblem, recordChecker } from '../../src/model/schema-check.js';
import { article, calendarEvent } from '../helpers/records.js';
import { consensusRow, investor, trade } from '../validate/records.js';

describe('checkResourceSchema', () => {
  it('checks against schemas that are valid JSON Schema 2020-12 (the check itself skips the meta-schema)', () => {
    const meta = new Ajv2020({ strict: false });
    const checked: string[] = [];
    for (const dataset of DATASETS) {
      for (const resource of Object.keys(DATASET_RESOURCES[dataset])) {
        expect(meta.validateSchema(resourceJsonSchema(dataset, resource)), `${dataset}/${resource}: ${meta.errorsText()}`).toBe(true);
        checked.push(`${dataset}/${resource}`);
      }
    }
    expect(checked).toEqual([
      'articles/articles',
      'calendar/events',
      'smart-money/investors',
      'smart-money/consensus',
      'smart-money/trades',
    ]);
    // The meta-schema check can fail: a schema with a wrongly typed keyword is refused.
    expect(meta.validateSchema({ type: 'object', required: 'id' })).toBe(false);
  });

  it('accepts records that match the generated JSON Schemas', () => {
    expect(checkResourceSchema('articles', 'articles', [article('one'), article('two')])).toEqual([]);
    expect(checkResourceSchema('calendar', 'events', [calendarEvent('evt-0123456789abcdef', '2026-12-01T13:30:00.000Z')])).toEqual([]);
    expect(checkResourceSchema('smart-money', 'investors', [investor('example-capital')])).toEqual([]);
    expect(checkResourceSchema('smart-money', 'consensus', [consensusRow(1)])).toEqual([]);
    expect(checkResourceSchema('smart-money', 'trades', [trade('example-capital')])).toEqual([]);
  });

  it('names the record index and the field of each problem', () => {
    const bad = { ...article('two'), publishedAt: '2026-11-21' };
    const problems = checkResourceSchema('articles', 'articles', [article('one'), bad]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ resource: 'articles', index: 1, field: '/publishedAt' });
    expect(describeSchemaProblem(problems[0]!)).toMatch(/^articles record 1 field \/publishedAt: /);
  });

  it('reports an unlisted field by name, and a missing one', () => {
    const withCusip = { ...consensusRow(1), cusip: '037833100' };
    const { totalShares: _dropped, ...withoutShares } = consensusRow(2);
    const problems = checkResourceSchema('smart-money', 'consensus', [withCusip, withoutShares]);
    expect(problems.map((p) => [p.index, p.message])).toEqual(
      expect.arrayContaining([
        [0, expect.stringContaining('"cusip"')],
        [1, expect.stringContaining('totalShares')],
      ]),
    );
  });

  it('reports a resource that is not an array, and an unknown resource, without throwing', () => {
    expect(checkResourceSchema('articles', 'articles', { slug: 'x' })[0]).toMatchObject({ index: null });
    expect(checkResourceSchema('articles', 'nope.json', [])[0]?.message).toMatch(/no resource nope\.json/);
  });
});

describe('recordChecker', () => {
  it("gives a streamed record's first problem as one line, and null for a valid one", () => {
    const check = recordChecker('smart-money', 'trades');
    expect(check(trade('example-capital'))).toBeNull();
    expect(check({ ...trade('example-capital'), action: 'hold' })).toBe('/action must be equal to one of the allowed values');
    expect(check(trade('example-capital'))).toBeNull();
    expect(recordChecker('smart-money', 'positions')(trade('x'))).toMatch(/positions/);
  });
});
