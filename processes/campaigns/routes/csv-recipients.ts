// A campaign's recipients given as CSV (RFC 4180: fields quoted when they hold a comma, quote or line break, quotes
// doubled; CRLF or LF rows). The header row names the columns: `to` (any case) holds the number, every other column
// is a parameter named by its header, filling the message's {{placeholders}}; an empty cell gives no value. A
// broken file is a 422 naming the field and the line (the document says only "a string"), before anything is stored.
import { PARAM_NAME_PATTERN } from '../placeholders.js';
import { unprocessable } from '../../../api/errors.js';
import type { RecipientEntry } from './recipients.js';

const FIELD = 'body.recipientsCsv';
const PARAM_NAME = new RegExp(PARAM_NAME_PATTERN);

export function parseRecipientsCsv(text: string, limits: { maxRows: number; maxParams: number; maxValue: number }): RecipientEntry[] {
  const rows = parseCsv(text);
  const header = rows.shift();
  if (!header) throw unprocessable(FIELD, 'csv_header', 'needs a header row naming the columns, one of them `to`');
  const names = header.map((h) => h.trim());
  const toAt = names.findIndex((n) => n.toLowerCase() === 'to');
  if (toAt < 0) throw unprocessable(FIELD, 'csv_header', 'line 1: no `to` column (the header row names the columns: `to`, then one per parameter)');
  const params = names.flatMap((n, i) => (i === toAt ? [] : [{ name: n, at: i }]));
  for (const p of params) {
    if (!PARAM_NAME.test(p.name))
      throw unprocessable(FIELD, 'csv_header', `line 1: column "${p.name.slice(0, 70)}" is not a parameter name (letters, digits and _, at most 64)`);
  }
  const seen = new Set<string>();
  for (const n of names.map((x) => x.toLowerCase())) {
    if (seen.has(n)) throw unprocessable(FIELD, 'csv_header', `line 1: column ${n} appears twice`);
    seen.add(n);
  }
  if (params.length > limits.maxParams) throw unprocessable(FIELD, 'csv_header', `line 1: at most ${limits.maxParams} parameter columns`);
  if (!rows.length) throw unprocessable(FIELD, 'minItems', 'has no recipient rows after the header');
  if (rows.length > limits.maxRows) throw unprocessable(FIELD, 'maxItems', `has ${rows.length} recipient rows; at most ${limits.maxRows}`);
  return rows.map((cells, i) => {
    const line = i + 2;
    if (cells.length !== names.length) throw unprocessable(FIELD, 'csv_row', `line ${line}: ${cells.length} fields, the header has ${names.length}`);
    const values: Record<string, string> = {};
    for (const p of params) {
      const v = cells[p.at]!;
      if (v.length > limits.maxValue) throw unprocessable(FIELD, 'csv_row', `line ${line}: ${p.name} is longer than ${limits.maxValue} characters`);
      if (v !== '') values[p.name] = v;
    }
    return { to: cells[toAt]!.trim(), ...(params.length ? { params: values } : {}) };
  });
}

/** RFC 4180 rows; empty lines are skipped (a trailing line break included). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  const endRow = () => {
    row.push(field);
    if (!(row.length === 1 && row[0] === '')) rows.push(row);
    row = [];
    field = '';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (ch === '\n') line++;
        field += ch;
      }
      continue;
    }
    if (ch === '"') {
      if (field !== '') throw unprocessable(FIELD, 'csv_row', `line ${line}: a quote inside an unquoted field (quote the whole field and double the quote)`);
      quoted = true;
    } else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRow();
      line++;
    } else field += ch;
  }
  if (quoted) throw unprocessable(FIELD, 'csv_row', `line ${line}: a quoted field is not closed`);
  endRow();
  return rows;
}
