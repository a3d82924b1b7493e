/**
 * The large texts of a queued request beside its `requests` row (issue 25 item 3): what the caller sent
 * (data as JSON, headers, a multipart body) and the kept answer, each in pieces under the row limit, under
 * a key the request's plan holds. A row then holds the record's small fields and the plan without its
 * body, so the data is stored once and no row passes 2,000,000 bytes whatever the bodies' sizes.
 */
import { textPieces } from '../schemas/utf8';

/** Appended to ForwardQueueDO's schema; a deleted request takes its texts with it. */
export const REQUEST_TEXTS_SCHEMA = `CREATE TABLE request_texts (
     key TEXT NOT NULL,
     name TEXT NOT NULL,
     piece INTEGER NOT NULL,
     txt TEXT NOT NULL,
     PRIMARY KEY (key, name, piece)
   ) WITHOUT ROWID;
   CREATE TRIGGER requests_drop_texts AFTER DELETE ON requests WHEN json_extract(old.plan, '$.texts') IS NOT NULL BEGIN
     DELETE FROM request_texts WHERE key = json_extract(old.plan, '$.texts');
   END;`;

export const RECORD_TEXTS = ['request_body', 'request_headers', 'response_body'] as const;
export type TextName = (typeof RECORD_TEXTS)[number] | 'multipart';
export type Texts = Partial<Record<TextName, string>>;

/** Bytes of one stored piece: half a row, so a piece and its key always fit. */
const PIECE_BYTES = 1_000_000;

export class RequestTexts {
  constructor(private readonly sql: SqlStorage) {}

  /** Replaces one text (undefined: removes it). */
  write(key: string, name: TextName, text: string | undefined): void {
    this.sql.exec('DELETE FROM request_texts WHERE key = ? AND name = ?', key, name);
    if (text === undefined) return;
    const pieces = text === '' ? [''] : textPieces(text, PIECE_BYTES);
    pieces.forEach((txt, piece) => this.sql.exec('INSERT INTO request_texts (key, name, piece, txt) VALUES (?, ?, ?, ?)', key, name, piece, txt));
  }

  /** The named texts stored under the key (a name not stored is absent). */
  read(key: string, names: readonly TextName[]): Texts {
    const texts: Texts = {};
    const rows = this.sql.exec<{ name: TextName; txt: string }>(
      'SELECT name, txt FROM request_texts WHERE key = ? AND name IN (SELECT value FROM json_each(?)) ORDER BY name, piece',
      key,
      JSON.stringify(names),
    );
    for (const row of rows) texts[row.name] = (texts[row.name] ?? '') + row.txt;
    return texts;
  }
}
