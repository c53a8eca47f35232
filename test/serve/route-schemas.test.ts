import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { PROFILE_A_OPERATIONS } from '../../src/serve/routes/profile-a-operations.js';
import { PROFILE_B_OPERATIONS } from '../../src/serve/routes/profile-b-operations.js';

/**
 * The server compiles the operations' parameter schemas without checking them against the JSON
 * Schema 2020-12 meta-schema (src/serve/parameter-validation.ts): they are code, so they are
 * checked here once, with the meta-schema, instead of at every start.
 */
describe('the parameter schemas of every operation', () => {
  const ajv = new Ajv2020({ strict: false });
  addFormats.default(ajv, { mode: 'full', formats: ['date'] });

  it.each([...PROFILE_A_OPERATIONS, ...PROFILE_B_OPERATIONS].map((op) => [op.operationId, op] as const))(
    '%s: querystring and path parameters are valid JSON Schema 2020-12',
    (_, op) => {
      for (const schema of [op.querystring, ...(op.params ? [op.params] : [])]) {
        expect(ajv.validateSchema(schema), ajv.errorsText(ajv.errors)).toBe(true);
      }
    },
  );

  it('would catch a schema the meta-schema refuses', () => {
    expect(ajv.validateSchema({ type: 'object', properties: { limit: { type: 'integer', minimum: 'one' } } })).toBe(false);
  });
});
