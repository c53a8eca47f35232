/**
 * A record's JSON exactly as a bundle stores it (a line of its NDJSON part, or a serving index's
 * row before layout 4): the canonical JSON that `build` checked against the record's schema, with
 * the fields the API sends. The response serializer writes it
 * as it is. Parsing a page of trades only to serialize it again was most of what a Smart Money
 * page cost beyond the query; the only difference a client can see is key order (canonical,
 * alphabetical, where a parsed record would follow the response schema's order).
 */
export class StoredJson {
  readonly utf8: Buffer;

  constructor(json: string | Buffer) {
    this.utf8 = typeof json === 'string' ? Buffer.from(json, 'utf8') : json;
  }
}
