/**
 * A record's JSON exactly as a serving index stores it: the canonical JSON that `build` checked
 * against the record's schema, with the fields the API sends. The response serializer writes it
 * as it is. Parsing a page of trades only to serialize it again was most of what a Smart Money
 * page cost beyond the query; the only difference a client can see is key order (canonical,
 * alphabetical, where a parsed record would follow the response schema's order).
 */
export class StoredJson {
  readonly utf8: Buffer;

  constructor(json: string) {
    this.utf8 = Buffer.from(json, 'utf8');
  }
}
