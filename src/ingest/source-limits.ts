/**
 * Every limit that bounds what one source file may cost a build, in one place. Source files come
 * from outside (partners, feeds, SEC downloads, hand-edited YAML): each limit turns "unbounded time
 * or memory" into a rejection of that one file, naming it. docs/sources-*.md list them.
 */

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** A file read whole into memory: an article, a feed, a calendar file, a sidecar, a registry. */
export const MAX_SOURCE_FILE_BYTES = 64 * MiB;

/**
 * An EDGAR full submission or a filing folder's XML, also read whole. The largest real 13F
 * submissions (the biggest asset managers) are a few tens of MB.
 */
export const MAX_FILING_FILE_BYTES = 512 * MiB;

/** Folders below a dataset's folder (articles/, calendar/, filings/...), symlinked ones included. */
export const MAX_FOLDER_DEPTH = 32;

/** Elements nested inside each other in any XML source; real feeds and 13F documents nest fewer than 20. */
export const MAX_XML_DEPTH = 100;

/** Attributes on one XML element; real feeds and 13F documents carry fewer than ten. */
export const MAX_XML_ATTRIBUTES = 1000;

/** Arrays and objects nested inside each other in a JSON source. */
export const MAX_JSON_DEPTH = 100;

/** Alias expansions in one YAML document: a "billion laughs" document is refused, not expanded. */
export const MAX_YAML_ALIASES = 100;

/** One line (one record) of a Form 13F data set TSV; real rows are a few hundred bytes. */
export const MAX_DATASET_LINE_BYTES = 1 * MiB;

/** Members of one data set ZIP (the SEC's hold about ten); more are refused before the listing is read. */
export const MAX_DATASET_MEMBERS = 1000;

/** The inflated size of one member of a data set ZIP; a full quarter's INFOTABLE.tsv is under 1 GiB. */
export const MAX_DATASET_MEMBER_BYTES = 2 * GiB;

/** Years a source date may name: anything else is a typo (`0026`, `0000`, `20026`), not a date. */
export const EARLIEST_YEAR = 1900;
export const LATEST_YEAR = 2199;
