/** Where a bucket store is: `s3://bucket/prefix`. Credentials never appear in it. */
export interface BucketLocation {
  bucket: string;
  /** '' or a prefix ending in '/'. */
  prefix: string;
}

export function isBucketLocation(location: string): boolean {
  return location.startsWith('s3://');
}

/** Parses `s3://bucket[/prefix]`; anything else (a user:password@, a query) is refused. */
export function parseBucketLocation(location: string): BucketLocation {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(location);
  if (!match) {
    // Never repeat what was typed before an @: it may be a key pair, and this message lands in CI logs.
    const shown = location.replace(/^s3:\/\/[^/]*@/, 's3://***@');
    throw new Error(
      `${shown} is not a bucket store: expected s3://bucket/prefix (bucket: 3-63 lower-case letters, digits, dots, hyphens; credentials come from the AWS environment, never the URL)`,
    );
  }
  const prefix = (match[2] ?? '').replace(/\/+$/, '');
  if (/(^|\/)\.\.?(\/|$)|\/\/|[?#\\]/.test(prefix)) throw new Error(`${location}: the prefix must be plain path segments`);
  return { bucket: match[1]!, prefix: prefix === '' ? '' : `${prefix}/` };
}

export function formatBucketLocation({ bucket, prefix }: BucketLocation): string {
  return `s3://${bucket}${prefix === '' ? '' : `/${prefix.replace(/\/$/, '')}`}`;
}
