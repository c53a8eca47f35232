import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';
import type { JsonSchema } from './parameter-validation.js';
import { StoredJson } from './stored-json.js';

type Serialize = (value: unknown) => string;

/** Our schemas are plain JSON Schema objects; fast-json-stringify's types want its own shapes. */
const compile = (schema: JsonSchema): Serialize => fastJson(schema as unknown as fastJson.Schema) as Serialize;

/**
 * Fastify's serializer compiler (fast-json-stringify from each route's response schema, compiled
 * once at start), plus a cache of each served record's JSON.
 *
 * Escaping the strings of the same articles again on every request was a fifth of the server's CPU.
 * The records a route serves are the snapshot's own objects, immutable while the snapshot is served,
 * so the JSON of one record under one schema is the same on every request: it is kept in a WeakMap
 * keyed by the record object, and goes away with the snapshot. An envelope whose first property is
 * `data` (every envelope of both profiles) is written as the cached `data` followed by the rest of
 * the envelope from its own compiled serializer: the same bytes, in the same order, as serializing
 * the whole. Objects made per request (Profile B's projections) are simply never found again.
 */
export const cachingSerializerCompiler: FastifySerializerCompiler<JsonSchema> = ({ schema }) =>
  // Fastify's type says string, but it sends whatever the serializer returns as the payload, and a
  // Buffer payload is written as is (no second UTF-8 pass to measure and encode a string).
  compileResponseSerializer(schema) as (value: unknown) => string;

/** The body of a response: a string, or for enveloped records a Buffer of UTF-8 JSON. */
export function compileResponseSerializer(schema: JsonSchema): (value: unknown) => string | Buffer {
  const whole = compile(schema);
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  const data = properties?.data;
  if (schema.type !== 'object' || !properties || !data || Object.keys(properties)[0] !== 'data' || schema.additionalProperties !== false)
    return whole;

  const items = data.type === 'array' ? (data.items as JsonSchema | undefined) : undefined;
  if (data.type !== 'object' && !(items && items.type === 'object')) return whole;
  const record = cachedRecordSerializer(items ?? data);

  const { data: _data, ...restProperties } = properties;
  const restSchema = {
    ...schema,
    type: 'object',
    properties: restProperties,
    required: ((schema.required as string[] | undefined) ?? []).filter((name) => name !== 'data'),
  } as const;
  const rest = compile(restSchema);

  return (value: unknown) => {
    const envelope = value as { data?: unknown } | null;
    // Anything unexpected goes through the whole-schema serializer, which reports it as before.
    if (envelope === null || typeof envelope !== 'object' || envelope.data === undefined) return whole(value);
    const parts: Buffer[] = [];
    if (items) {
      if (!Array.isArray(envelope.data)) return whole(value);
      parts.push(DATA_ARRAY_OPEN);
      envelope.data.forEach((item, index) => {
        if (index > 0) parts.push(COMMA);
        parts.push(record(item));
      });
      parts.push(ARRAY_CLOSE);
    } else {
      parts.push(DATA_OPEN, record(envelope.data));
    }
    const tail = rest(envelope);
    parts.push(tail === '{}' ? OBJECT_CLOSE : Buffer.from(`,${tail.slice(1)}`));
    return Buffer.concat(parts);
  };
}

const DATA_ARRAY_OPEN = Buffer.from('{"data":[');
const DATA_OPEN = Buffer.from('{"data":');
const COMMA = Buffer.from(',');
const ARRAY_CLOSE = Buffer.from(']');
const OBJECT_CLOSE = Buffer.from('}');

function cachedRecordSerializer(schema: JsonSchema): (value: unknown) => Buffer {
  const serialize = compile(schema);
  const cache = new WeakMap<object, Buffer>();
  return (value) => {
    if (value instanceof StoredJson) return value.utf8;
    if (value === null || typeof value !== 'object') return Buffer.from(serialize(value));
    let json = cache.get(value);
    if (json === undefined) {
      json = Buffer.from(serialize(value));
      cache.set(value, json);
    }
    return json;
  };
}
