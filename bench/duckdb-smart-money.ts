import { DuckDBInstance } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { isPeriodTooOld } from '../src/derive/smart-money/staleness.js';
import { DOLLARS_FROM, DOLLARS_TOO_CHEAP, MIN_ROWS_TO_OVERRIDE, THOUSANDS_TOO_DEAR } from '../src/ingest/filings/value-unit.js';
import { CONSENSUS_INPUT_CAP, CURRENT_CHANGE_ROW_CAP, POSITION_CAP } from '../src/model/smart-money.js';
import { COVERPAGE_COLUMNS, INFOTABLE_COLUMNS, SUBMISSION_COLUMNS } from '../src/sample/form13f-dataset.js';

/**
 * The anchor of the Smart Money benchmark: the same derivation as `pdsnap build --datasets
 * smart-money --all-filers` written as DuckDB SQL over the same Form 13F data sets, run in its own
 * process (2 threads) so that its time and peak memory are measured like pdsnap's.
 *
 *   node dist/bench/duckdb-smart-money.js <datasets folder> <work folder> <now> [zip|tsv]
 *
 * Two ways in, two fair questions:
 * - `zip` (the default): the data-set ZIPs, unzipped first (counted in its time, as pdsnap inflates
 *   them too), every column read as text, and each INFOTABLE row numbered in file order
 *   (`row_number() OVER ()`, which DuckDB runs on one thread) for the tie of two rows of one
 *   position with the same value.
 * - `tsv`: the extracted data-set folders, read as a DuckDB user who has the TSVs would: typed
 *   columns (dates parsed by read_csv, numbers as numbers), only the columns used (DuckDB pushes
 *   the projection into the scan), no window over the whole table (the tie goes to the lower
 *   INFOTABLE_SK, the SEC's own row key, which grows in file order within a data set), insertion
 *   order not preserved, and the outputs written as newline-delimited JSON.
 *
 * Then it derives: the effective filing per filer and quarter (the latest 13F-HR, or the latest
 * RESTATEMENT; notices hold nothing), the value unit per filing (filing date rule, overridden by the
 * median implied share price), positions aggregated per CUSIP, put/call and SH/PRN, investors whose
 * latest quarter is fresh, the 250-position cap, consensus over the capped equity positions that
 * hold shares, and trades against the adjacent previous quarter (changes capped at 250, every sale
 * kept). It writes investors, consensus and trades as JSON and prints counts for the cross-check.
 *
 * What it leaves out because the generated data sets never contain it: NEW HOLDINGS amendments,
 * duplicate accessions across data sets, rejected rows, EDGAR XML filings and the registry.
 */
const [datasets, work, nowText, mode = 'zip'] = process.argv.slice(2) as [string, string, string, string?];
if (mode !== 'zip' && mode !== 'tsv') throw new Error(`mode must be zip or tsv, not ${mode}`);
const now = new Date(nowText);
const MAX_QUARTER_AGE_DAYS = 180;
/**
 * The value and the row number of an INFOTABLE row as one number, largest value first and then the
 * earlier row: arg_max over it picks a position's issuer and title. A tuple key did the same and
 * cost DuckDB 2 to 3 s more at full size (its struct comparisons), a handicap its users would not
 * give it. Row numbers (and INFOTABLE_SK) stay below 10^10.
 */
const RN_SPAN = 10_000_000_000;

const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const db = await instance.connect();
const run = (sql: string) => db.run(sql);
const rows = async (sql: string) => (await db.runAndReadAll(sql)).getRowObjectsJson();

if (mode === 'zip') await loadFromZips();
else await loadFromTsvFolders();

/** The data-set ZIPs unzipped, every column as text, INFOTABLE rows numbered in file order. */
async function loadFromZips(): Promise<void> {
  const tsv = path.join(work, 'tsv');
  mkdirSync(tsv, { recursive: true });
  for (const [index, zip] of readdirSync(datasets)
    .filter((name) => name.endsWith('.zip'))
    .sort()
    .entries()) {
    execFileSync('unzip', ['-q', '-o', '-j', path.join(datasets, zip), '-d', path.join(tsv, String(index))]);
  }
  /** A DuckDB column list that reads every named column as text. */
  const varcharColumns = (names: readonly string[]) => names.map((c) => `'${c}': 'VARCHAR'`).join(', ');
  const files = (name: string) => `'${tsv}/*/${name}'`;
  const csv = (name: string, columns: string) =>
    `read_csv(${files(name)}, delim = '\t', header = true, quote = '', escape = '', all_varchar = true, columns = {${columns}})`;
  await run(`CREATE TABLE submission AS
    SELECT trim(ACCESSION_NUMBER) AS accession, strptime(trim(FILING_DATE), '%d-%b-%Y')::DATE AS filed, upper(trim(SUBMISSIONTYPE)) AS type,
           ltrim(trim(CIK), '0') AS cik, strptime(trim(PERIODOFREPORT), '%d-%b-%Y')::DATE AS period
    FROM ${csv('SUBMISSION.tsv', varcharColumns(SUBMISSION_COLUMNS))}`);
  await run(`CREATE TABLE cover AS
    SELECT trim(ACCESSION_NUMBER) AS accession, trim(FILINGMANAGER_NAME) AS filer_name, upper(trim(coalesce(AMENDMENTTYPE, ''))) AS amendment_type,
           upper(trim(coalesce(ISAMENDMENT, ''))) = 'Y' AS is_amendment
    FROM ${csv('COVERPAGE.tsv', varcharColumns(COVERPAGE_COLUMNS))}`);
  await run(`CREATE TABLE info AS
    SELECT trim(ACCESSION_NUMBER) AS accession, row_number() OVER () AS rn, trim(NAMEOFISSUER) AS issuer, trim(coalesce(TITLEOFCLASS, '')) AS title,
           upper(trim(CUSIP)) AS cusip, VALUE::DOUBLE AS value, SSHPRNAMT::DOUBLE AS amount, upper(trim(SSHPRNAMTTYPE)) AS amount_type,
           nullif(lower(trim(coalesce(PUTCALL, ''))), '') AS put_call
    FROM ${csv('INFOTABLE.tsv', varcharColumns(INFOTABLE_COLUMNS))}`);
}

/**
 * The extracted folders read in place with typed columns. read_csv needs every column of the file
 * named; those not selected are never materialized.
 */
async function loadFromTsvFolders(): Promise<void> {
  await run('SET preserve_insertion_order = false');
  const typed = (names: readonly string[], types: Record<string, string>) =>
    names.map((c) => `'${c}': '${types[c] ?? 'VARCHAR'}'`).join(', ');
  const csv = (name: string, columns: string) =>
    `read_csv('${datasets}/*/${name}', delim = '\t', header = true, quote = '', escape = '', dateformat = '%d-%b-%Y', columns = {${columns}})`;
  await run(`CREATE TABLE submission AS
    SELECT trim(ACCESSION_NUMBER) AS accession, FILING_DATE AS filed, upper(trim(SUBMISSIONTYPE)) AS type,
           ltrim(trim(CIK), '0') AS cik, PERIODOFREPORT AS period
    FROM ${csv('SUBMISSION.tsv', typed(SUBMISSION_COLUMNS, { FILING_DATE: 'DATE', PERIODOFREPORT: 'DATE' }))}`);
  await run(`CREATE TABLE cover AS
    SELECT trim(ACCESSION_NUMBER) AS accession, trim(FILINGMANAGER_NAME) AS filer_name, upper(trim(coalesce(AMENDMENTTYPE, ''))) AS amendment_type,
           upper(trim(coalesce(ISAMENDMENT, ''))) = 'Y' AS is_amendment
    FROM ${csv('COVERPAGE.tsv', typed(COVERPAGE_COLUMNS, {}))}`);
  await run(`CREATE TABLE info AS
    SELECT trim(ACCESSION_NUMBER) AS accession, INFOTABLE_SK AS rn, trim(NAMEOFISSUER) AS issuer, trim(coalesce(TITLEOFCLASS, '')) AS title,
           upper(trim(CUSIP)) AS cusip, VALUE AS value, SSHPRNAMT AS amount, upper(trim(SSHPRNAMTTYPE)) AS amount_type,
           nullif(lower(trim(coalesce(PUTCALL, ''))), '') AS put_call
    FROM ${csv('INFOTABLE.tsv', typed(INFOTABLE_COLUMNS, { INFOTABLE_SK: 'BIGINT', VALUE: 'DOUBLE', SSHPRNAMT: 'DOUBLE' }))}`);
}

// Fresh quarters, decided by pdsnap's own rule (a handful of distinct periods).
const periods = (await rows("SELECT DISTINCT strftime(period, '%Y-%m-%d') AS period FROM submission")).map((r) => String(r.period));
const fresh = periods.filter((period) => !isPeriodTooOld(period, now, MAX_QUARTER_AGE_DAYS));
const freshList = fresh.length === 0 ? 'NULL' : fresh.map((p) => `DATE '${p}'`).join(', ');

// The amendment type counts only on an amendment (a 13F-HR/A, or a 13F-HR whose cover page says ISAMENDMENT Y).
await run(`CREATE TABLE filing AS
  SELECT s.*, c.filer_name,
    CASE WHEN c.is_amendment OR s.type LIKE '%/A' THEN c.amendment_type ELSE '' END AS amendment_type
  FROM submission s JOIN cover c USING (accession)`);
// The base filing of each filer and quarter: the latest RESTATEMENT, else the latest original
// (an unmarked 13F-HR).
await run(`CREATE TABLE base AS
  SELECT cik, period, arg_max(accession, (CASE WHEN amendment_type = 'RESTATEMENT' THEN 1 ELSE 0 END, filed, accession)) AS accession
  FROM filing WHERE (type = '13F-HR' AND amendment_type = '') OR (type IN ('13F-HR', '13F-HR/A') AND amendment_type = 'RESTATEMENT')
  GROUP BY cik, period`);
await run(`CREATE TABLE unit AS
  SELECT f.accession,
    CASE
      WHEN count(i.value) FILTER (WHERE i.amount_type = 'SH' AND i.put_call IS NULL AND i.amount > 0 AND i.value > 0) < ${MIN_ROWS_TO_OVERRIDE}
        THEN (f.filed >= DATE '${DOLLARS_FROM}')
      WHEN f.filed >= DATE '${DOLLARS_FROM}'
        THEN median(i.value / i.amount) FILTER (WHERE i.amount_type = 'SH' AND i.put_call IS NULL AND i.amount > 0 AND i.value > 0) >= ${DOLLARS_TOO_CHEAP}
      ELSE median(i.value / i.amount) FILTER (WHERE i.amount_type = 'SH' AND i.put_call IS NULL AND i.amount > 0 AND i.value > 0) * 1000 > ${THOUSANDS_TOO_DEAR}
    END AS dollars
  FROM base b JOIN filing f USING (accession) LEFT JOIN info i USING (accession)
  GROUP BY f.accession, f.filed`);
await run(`CREATE TABLE position AS
  SELECT b.cik, b.period,
    i.cusip || '|' || coalesce(i.put_call, '-') || '|' || i.amount_type AS key,
    arg_max(i.issuer, round(i.value * CASE WHEN u.dollars THEN 1 ELSE 1000 END)::HUGEINT * ${RN_SPAN} - i.rn) AS issuer,
    arg_max(i.title, round(i.value * CASE WHEN u.dollars THEN 1 ELSE 1000 END)::HUGEINT * ${RN_SPAN} - i.rn) AS title,
    CASE WHEN any_value(i.put_call) IS NOT NULL THEN any_value(i.put_call) WHEN any_value(i.amount_type) = 'PRN' THEN 'principal' ELSE 'equity' END AS kind,
    round(sum(i.amount))::HUGEINT AS shares,
    round(sum(round(i.value * CASE WHEN u.dollars THEN 1 ELSE 1000 END)))::HUGEINT AS value
  FROM base b JOIN unit u USING (accession) JOIN info i USING (accession)
  GROUP BY b.cik, b.period, key`);
// Investors: every filer whose latest quarter with a holdings report is fresh.
await run(`CREATE TABLE investor AS
  WITH totals AS (SELECT cik, period, count(*) AS position_count, sum(value) AS value_total FROM position GROUP BY cik, period)
  SELECT b.cik, b.period, b.accession, f.filer_name AS name, f.filed,
    coalesce(t.position_count, 0) AS position_count, coalesce(t.value_total, 0) AS value_total
  FROM (SELECT cik, max(period) AS period FROM base GROUP BY cik) latest
  JOIN base b USING (cik, period) JOIN filing f ON f.accession = b.accession
  LEFT JOIN totals t ON t.cik = b.cik AND t.period = b.period
  WHERE b.period IN (${freshList})`);
await run(`CREATE TABLE shown AS
  SELECT * FROM (
    SELECT p.*, row_number() OVER (PARTITION BY p.cik ORDER BY p.value DESC, p.issuer, p.key) AS position_rank
    FROM position p JOIN investor v USING (cik, period))
  WHERE position_rank <= ${POSITION_CAP}`);
await run(`CREATE TABLE consensus AS
  WITH held AS (
    SELECT key, cik, issuer, title, shares, value FROM shown WHERE kind = 'equity' AND shares > 0 AND position_rank <= ${CONSENSUS_INPUT_CAP}),
  names AS (
    SELECT key, arg_max(issuer, (n, -rank_name)) AS issuer, arg_max(title, (n, -rank_name)) AS title FROM (
      SELECT key, issuer, title, count(*) AS n, dense_rank() OVER (PARTITION BY key ORDER BY issuer, title) AS rank_name
      FROM held GROUP BY key, issuer, title) GROUP BY key),
  tally AS (
    SELECT key, count(DISTINCT cik) AS holder_count, sum(value) AS total_value, sum(shares) AS total_shares FROM held GROUP BY key)
  SELECT row_number() OVER (ORDER BY t.holder_count DESC, t.total_value DESC, n.issuer, t.key) AS rank,
         n.issuer AS issuerName, n.title AS titleOfClass, t.holder_count AS holderCount, t.total_value AS totalReportedValue, t.total_shares AS totalShares
  FROM tally t JOIN names n USING (key)`);
// Trades: investors that filed holdings for the adjacent previous quarter, position by position.
await run(`CREATE TABLE trade AS
  WITH compared AS (
    SELECT v.cik, v.name, v.period, (date_trunc('quarter', v.period) - INTERVAL 1 DAY)::DATE AS previous_period
    FROM investor v JOIN base pb ON pb.cik = v.cik AND pb.period = (date_trunc('quarter', v.period) - INTERVAL 1 DAY)::DATE),
  cur AS (SELECT p.* FROM position p JOIN compared c ON c.cik = p.cik AND c.period = p.period),
  prev AS (SELECT p.* FROM position p JOIN compared c ON c.cik = p.cik AND c.previous_period = p.period),
  pair AS (
    SELECT coalesce(a.cik, b.cik) AS cik, coalesce(a.key, b.key) AS key,
      coalesce(a.issuer, b.issuer) AS issuer, coalesce(a.title, b.title) AS title, coalesce(a.kind, b.kind) AS kind,
      coalesce(b.shares, 0) AS shares_before, coalesce(a.shares, 0) AS shares_after,
      coalesce(b.value, 0) AS value_before, coalesce(a.value, 0) AS value_after
    FROM cur a FULL JOIN prev b ON a.cik = b.cik AND a.key = b.key),
  classified AS (
    SELECT p.*, c.name, CASE
      WHEN shares_before <= 0 THEN CASE WHEN shares_after > 0 THEN 'new' END
      WHEN shares_after <= 0 THEN 'sold'
      WHEN shares_after > shares_before THEN 'added'
      WHEN shares_after < shares_before THEN 'trimmed' END AS action
    FROM pair p JOIN compared c USING (cik))
  SELECT * FROM (
    SELECT *, row_number() OVER (PARTITION BY cik, action = 'sold' ORDER BY value_after DESC, issuer, key) AS change_rank
    FROM classified WHERE action IS NOT NULL)
  WHERE action = 'sold' OR change_rank <= ${CURRENT_CHANGE_ROW_CAP}`);

const out = path.join(work, 'out');
/** The ZIP run writes JSON arrays, as it always has; the TSV run newline-delimited JSON, DuckDB's own default. */
const jsonArray = mode === 'zip' ? ', ARRAY true' : '';
mkdirSync(out, { recursive: true });
await run(`COPY (SELECT v.name, strftime(v.period, '%Y-%m-%d') AS period, v.value_total AS reportedValueTotal, v.position_count AS positionCount,
    least(v.position_count, ${POSITION_CAP}) AS positionsShown FROM investor v ORDER BY v.cik) TO '${out}/investors.json' (FORMAT JSON${jsonArray})`);
await run(`COPY (SELECT * FROM consensus ORDER BY rank) TO '${out}/consensus.json' (FORMAT JSON${jsonArray})`);
await run(`COPY (SELECT name AS investorName, issuer AS issuerName, title AS titleOfClass, kind, action, shares_before AS sharesBefore,
    shares_after AS sharesAfter, value_before AS reportedValueBefore, value_after AS reportedValueAfter FROM trade ORDER BY cik, action, key)
    TO '${out}/trades.json' (FORMAT JSON${jsonArray})`);

const [investors] = await rows(
  `SELECT count(*) AS investors, coalesce(sum(least(position_count, ${POSITION_CAP})), 0) AS positionsShown FROM investor`,
);
const trades = await rows('SELECT action, count(*) AS n FROM trade GROUP BY action');
const consensus = await rows('SELECT issuerName, holderCount, totalReportedValue FROM consensus ORDER BY rank');
process.stdout.write(
  JSON.stringify({
    investors: Number(investors!.investors),
    positionsShown: Number(investors!.positionsShown),
    trades: Object.fromEntries(trades.map((t) => [String(t.action), Number(t.n)])),
    consensus: consensus.map((c) => [String(c.issuerName), Number(c.holderCount), Number(c.totalReportedValue)]),
  }),
);
