/**
 * The footprint of one SQLite database (D1, or a Durable Object's own SQLite), table by table and index
 * by index, read with plain SELECTs, so it works where `dbstat` is not compiled in (neither the local D1
 * nor a Durable Object's SQLite offers it: "no such table: dbstat").
 *
 * Each b-tree's bytes are the sum of its cells as SQLite's file format lays them out
 * (https://www.sqlite.org/fileformat2.html, "B-tree Pages" and "Record Format"):
 *   cell = 2 (cell pointer) + varint(payload size) + varint(rowid) (rowid tables only) + payload
 *   payload = header (varint(header size) + one varint serial type per column) + each value's body
 * A value's body is 0 bytes for NULL and the integers 0 and 1, 1/2/3/4/6/8 bytes for other integers, 8
 * for a real, its UTF-8 / raw length for text / blob. An index cell holds its key columns plus the
 * table's rowid (or primary key, WITHOUT ROWID); a partial index only the rows its WHERE admits. What
 * this leaves out (page headers, free space in pages, interior pages, overflow-page pointers) is in the
 * database's physical size, which the caller reads beside it (D1: `meta.size_after`; a Durable
 * Object: `sql.databaseSize`).
 */

export type Query = (sql: string) => Promise<Record<string, unknown>[]>;

export interface BtreeFootprint {
  kind: 'table' | 'index';
  table: string;
  rows: number;
  bytes: number;
}

/** By b-tree name (a table, or an index of one). */
export type Footprint = Record<string, BtreeFootprint>;

const quoteId = (name: string) => `"${name.replaceAll('"', '""')}"`;
const quoteText = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The bytes of a varint holding the non-negative integer expression `n` (9 for a negative one). */
const varintBytes = (n: string) =>
  `(CASE WHEN ${n} < 0 THEN 9 WHEN ${n} < 128 THEN 1 WHEN ${n} < 16384 THEN 2 WHEN ${n} < 2097152 THEN 3 WHEN ${n} < 268435456 THEN 4 ` +
  `WHEN ${n} < 34359738368 THEN 5 WHEN ${n} < 4398046511104 THEN 6 WHEN ${n} < 562949953421312 THEN 7 WHEN ${n} < 72057594037927936 THEN 8 ELSE 9 END)`;

/** The body bytes of the value of expression `v` in a record. */
const valueBytes = (v: string) =>
  `(CASE typeof(${v}) WHEN 'null' THEN 0 WHEN 'real' THEN 8 WHEN 'integer' THEN (CASE WHEN ${v} IN (0, 1) THEN 0 ` +
  `WHEN ${v} BETWEEN -128 AND 127 THEN 1 WHEN ${v} BETWEEN -32768 AND 32767 THEN 2 WHEN ${v} BETWEEN -8388608 AND 8388607 THEN 3 ` +
  `WHEN ${v} BETWEEN -2147483648 AND 2147483647 THEN 4 WHEN ${v} BETWEEN -140737488355328 AND 140737488355327 THEN 6 ELSE 8 END) ` +
  `ELSE length(CAST(${v} AS BLOB)) END)`;

/** The bytes of the serial type of expression `v` in a record's header. */
const serialTypeBytes = (v: string) => `(CASE WHEN typeof(${v}) IN ('text', 'blob') THEN ${varintBytes(`(2 * length(CAST(${v} AS BLOB)) + 13)`)} ELSE 1 END)`;

/**
 * A SELECT of the rows and bytes of the cells holding a record of the expressions `values` (NULL written
 * as 'NULL') of `from`, with the rowid when the b-tree is keyed by rowid. The payload is computed once per
 * row in a subquery (written out in the varint's cases it would pass SQLite's statement length). The
 * header's own size varint is counted as 1 byte (a header is under 128 bytes below about 60 columns).
 */
function cellsQuery(values: string[], rowid: boolean, from: string): string {
  const header = `(1 + ${values.map(serialTypeBytes).join(' + ')})`;
  const payload = `(${header} + ${values.map(valueBytes).join(' + ')})`;
  const cells = `SELECT ${payload} AS p, ${rowid ? 'rowid' : '0'} AS r FROM ${from}`;
  return `SELECT COUNT(*) AS n, COALESCE(SUM(2 + ${varintBytes('p')} + ${rowid ? varintBytes('r') : '0'} + p), 0) AS bytes FROM (${cells})`;
}

interface ColumnInfo {
  cid: number;
  name: string;
  type: string;
  pk: number;
}

interface TableShape {
  name: string;
  withoutRowid: boolean;
  columns: ColumnInfo[];
  /** A column declared INTEGER PRIMARY KEY is the rowid itself: its record slot holds NULL. */
  rowidAlias: string | null;
}

async function tableShape(query: Query, name: string, createSql: string): Promise<TableShape> {
  const columns = (await query(`SELECT cid, name, type, pk FROM pragma_table_info(${quoteText(name)}) ORDER BY cid`)) as unknown as ColumnInfo[];
  const withoutRowid = /WITHOUT\s+ROWID\s*;?\s*$/i.test(createSql.trim());
  const keys = columns.filter((column) => column.pk > 0);
  const rowidAlias = !withoutRowid && keys.length === 1 && keys[0].type.toUpperCase() === 'INTEGER' ? keys[0].name : null;
  return { name, withoutRowid, columns, rowidAlias };
}

async function tableFootprint(query: Query, shape: TableShape): Promise<BtreeFootprint> {
  const values = shape.columns.map((column) => (column.name === shape.rowidAlias ? 'NULL' : quoteId(column.name)));
  const [row] = await query(cellsQuery(values, !shape.withoutRowid, quoteId(shape.name)));
  return { kind: 'table', table: shape.name, rows: Number(row.n), bytes: Number(row.bytes) };
}

/** The WHERE of a partial index's CREATE statement (the text after its last WHERE), or null. */
function partialWhere(createSql: string | null): string | null {
  if (!createSql) return null;
  const at = createSql.search(/\sWHERE\s(?![\s\S]*\sWHERE\s)/i);
  return at < 0
    ? null
    : createSql
        .slice(at)
        .replace(/^\s*WHERE\s/i, '')
        .replace(/;\s*$/, '');
}

async function indexFootprint(query: Query, shape: TableShape, index: string, createSql: string | null): Promise<BtreeFootprint> {
  const xinfo = (await query(`SELECT cid, name FROM pragma_index_xinfo(${quoteText(index)}) ORDER BY seqno`)) as { cid: number; name: string | null }[];
  // cid -1 is the rowid; cid -2 an expression, whose value this cannot name: counted as its text (see the report).
  const values = xinfo.map((column) => (column.cid === -1 ? 'rowid' : column.cid === -2 || column.name === null ? "''" : quoteId(column.name)));
  const where = partialWhere(createSql);
  const [row] = await query(cellsQuery(values, false, `${quoteId(shape.name)}${where ? ` WHERE ${where}` : ''}`));
  return { kind: 'index', table: shape.name, rows: Number(row.n), bytes: Number(row.bytes) };
}

/** Tables the runtime keeps for itself and refuses to be read (Durable Objects' _cf_*, D1's _cf_METADATA). */
const isInternal = (name: string) => name.startsWith('_cf_') || name.startsWith('sqlite_') || name === 'd1_migrations';

/** Every user table and index of the database with its rows and bytes. */
export async function sqliteFootprint(query: Query): Promise<Footprint> {
  const tables = (await query("SELECT name, sql FROM sqlite_master WHERE type = 'table'")) as { name: string; sql: string }[];
  const footprint: Footprint = {};
  for (const table of tables.filter((t) => !isInternal(t.name))) {
    const shape = await tableShape(query, table.name, table.sql);
    footprint[table.name] = await tableFootprint(query, shape);
    const indexes = (await query(`SELECT name FROM pragma_index_list(${quoteText(table.name)})`)) as { name: string }[];
    for (const { name } of indexes) {
      // A WITHOUT ROWID table's primary key is the table's own b-tree, not an index beside it.
      if (shape.withoutRowid && name.startsWith('sqlite_autoindex_')) continue;
      const [created] = (await query(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ${quoteText(name)}`)) as { sql: string | null }[];
      footprint[name] = await indexFootprint(query, shape, name, created?.sql ?? null);
    }
  }
  return footprint;
}
