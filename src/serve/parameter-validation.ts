import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ParameterProblem } from './api-error.js';
import { InvalidEncoding } from './query-string.js';

export type JsonSchema = Record<string, unknown>;

interface ObjectSchema {
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

// No type coercion: query values are strings, and only the strict integer pre-pass below turns
// "20" into 20, so "1.5", "1e1", " 2" or "0x10" stay strings and fail as "must be an integer".
// The schemas are the operations' own, checked against the 2020-12 meta-schema by a test
// (test/serve/route-schemas.test.ts), not at every start: compiling the meta-schema was 50 ms of it.
const ajv = new Ajv2020({
  allErrors: false,
  strict: false,
  coerceTypes: false,
  useDefaults: true,
  removeAdditional: false,
  validateSchema: false,
});
addFormats.default(ajv, { mode: 'full', formats: ['date'] });

const INTEGER_TEXT = /^-?(0|[1-9][0-9]{0,14})$/;
/** A decimal integer of any length: one longer than INTEGER_TEXT is out of range, not "not an integer". */
const LONG_INTEGER_TEXT = /^-?[1-9][0-9]{15,}$/;
/** The largest value INTEGER_TEXT reads: the bound of an integer parameter that declares no maximum. */
const LARGEST_INTEGER = 999_999_999_999_999;

export type PartValidator = (data: unknown) => { value: Record<string, unknown> } | { error: ParameterProblem };

/**
 * Compiles the declared JSON schema of a querystring or of path parameters into a validator that
 * rejects, naming the parameter: unknown parameters, repeated ones (`?limit=1&limit=2`),
 * non-integers where an integer is declared, and every range, length, enum, pattern and format
 * of the schema. Defaults of the schema are applied to the value it returns.
 */
export function compileParameterValidator(schema: JsonSchema): PartValidator {
  const declared = schema as ObjectSchema;
  const properties = declared.properties ?? {};
  const validate = ajv.compile(schema);
  // The answer for a frozen query object (the query parser hands out one per query string): the same
  // object always validates to the same value, so it is validated once.
  const known = new WeakMap<object, { value: Record<string, unknown> }>();
  return (data) => {
    if (typeof data !== 'object' || data === null || !Object.isFrozen(data)) return check(data);
    let answer = known.get(data);
    if (answer === undefined) {
      const result = check(data);
      // A refusal is not kept: Fastify decorates the error it is given.
      if (!('value' in result)) return result;
      answer = { value: Object.freeze(result.value) };
      known.set(data, answer);
    }
    return answer;
  };

  function check(data: unknown): { value: Record<string, unknown> } | { error: ParameterProblem } {
    const value: Record<string, unknown> = {};
    for (const [name, raw] of Object.entries((data ?? {}) as Record<string, unknown>)) {
      // Own properties only: `__proto__` or `constructor` must be unknown parameters, not inherited ones.
      const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
      if (!property) return { error: new ParameterProblem(name, `unknown parameter ${name}`, 'unknown') };
      if (Array.isArray(raw)) return { error: new ParameterProblem(name, `${name} is given more than once`, 'repeated') };
      if (raw instanceof InvalidEncoding) return { error: new ParameterProblem(name, `${name} is not valid percent-encoded UTF-8`) };
      if (property.type === 'integer' && typeof raw === 'string' && LONG_INTEGER_TEXT.test(raw)) {
        return { error: new ParameterProblem(name, `${name} ${describeRange(property)}`) };
      }
      value[name] = property.type === 'integer' && typeof raw === 'string' && INTEGER_TEXT.test(raw) ? Number(raw) : raw;
    }
    if (validate(value)) return { value };
    const first = validate.errors?.[0];
    return { error: problemOf(first, properties) };
  }
}

function problemOf(error: ErrorObject | undefined, properties: Record<string, JsonSchema>): ParameterProblem {
  if (!error) return new ParameterProblem('(unknown)', 'invalid parameters');
  if (error.keyword === 'required') {
    const name = String((error.params as { missingProperty: string }).missingProperty);
    return new ParameterProblem(name, `${name} is required`);
  }
  const name =
    decodeURIComponent(error.instancePath.split('/')[1] ?? '')
      .replace(/~1/g, '/')
      .replace(/~0/g, '~') || '(unknown)';
  const property = properties[name] ?? {};
  return new ParameterProblem(name, `${name} ${describeRule(error, property)}`);
}

function describeRule(error: ErrorObject, property: JsonSchema): string {
  if (property.format === 'date' && (error.keyword === 'pattern' || error.keyword === 'format')) {
    return 'must be a calendar date written YYYY-MM-DD';
  }
  switch (error.keyword) {
    case 'type':
      return property.type === 'integer' ? 'must be an integer' : `must be a ${String(property.type)}`;
    case 'minimum':
    case 'maximum':
      return property.maximum === undefined
        ? `must be at least ${String(property.minimum)}`
        : `must be between ${String(property.minimum)} and ${String(property.maximum)}`;
    case 'minLength':
    case 'maxLength':
      return property.minLength === property.maxLength
        ? `must be exactly ${String(property.maxLength)} characters long`
        : `must be ${String(property.minLength ?? 0)} to ${String(property.maxLength)} characters long`;
    case 'enum':
      return `must be one of ${(property.enum as unknown[]).join(', ')}`;
    case 'pattern':
      return `must match ${String(property.pattern)}`;
    case 'format':
      return `must be a valid ${String(property.format)}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** The range of an integer parameter, for a value too long to be in it. */
function describeRange(property: JsonSchema): string {
  const minimum = property.minimum ?? -LARGEST_INTEGER;
  const maximum = property.maximum ?? LARGEST_INTEGER;
  return `must be between ${String(minimum)} and ${String(maximum)}`;
}
