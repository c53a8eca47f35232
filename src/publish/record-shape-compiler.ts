import type { z } from 'zod';
import { DATASET_RESOURCES, type DatasetName } from '../model/dataset.js';
import { jsonSchemaOf } from '../model/json-schema.js';

/** The part of a record's JSON Schema (model/json-schema.ts) that a compiled writer follows. */
interface JsonSchemaNode {
  type?: string | string[];
  properties?: Record<string, JsonSchemaNode>;
  items?: JsonSchemaNode;
}

/**
 * How one kind of compiled canonical writer (a string, compiled-canonical.ts; bytes,
 * compiled-canonical-bytes.ts) writes each JSON type. `object` gets its fields with their keys
 * already sorted in canonicalJson's order (UTF-16 code units); `unknown` is a shape the compiler does
 * not know, which always hands the record to the generic path.
 */
export interface WriterKit<W> {
  string(): W;
  number: W;
  boolean: W;
  unknown: W;
  array(item: W): W;
  object(fields: ReadonlyArray<{ key: string; write: W }>): W;
}

/** The writer of a record type: its JSON Schema walked once, each node made a writer of the kit. */
export function compileRecordShape<W>(schema: z.ZodType, kit: WriterKit<W>): W {
  const compile = (node: JsonSchemaNode): W => {
    switch (node.type) {
      case 'string':
        return kit.string();
      case 'number':
      case 'integer':
        return kit.number;
      case 'boolean':
        return kit.boolean;
      case 'array':
        return node.items ? kit.array(compile(node.items)) : kit.unknown;
      case 'object': {
        const properties = node.properties;
        if (!properties) return kit.unknown;
        // The default sort compares UTF-16 code units, as canonicalJson's key order does.
        return kit.object(
          Object.keys(properties)
            .sort()
            .map((key) => ({ key, write: compile(properties[key]!) })),
        );
      }
      default:
        return kit.unknown;
    }
  };
  return compile(jsonSchemaOf(schema) as JsonSchemaNode);
}

/**
 * The compiled writer of each bundle resource's records, made once per process by `make` from the
 * resource's schema; `none` for a resource without one.
 */
export function perResource<T>(make: (schema: z.ZodType) => T, none: T): (dataset: DatasetName, resource: string) => T {
  const made = new Map<string, T>();
  return (dataset, resource) => {
    const key = `${dataset}/${resource}`;
    if (!made.has(key)) {
      const schema = (DATASET_RESOURCES[dataset] as Record<string, z.ZodType>)[resource];
      made.set(key, schema ? make(schema) : none);
    }
    return made.get(key)!;
  };
}
