import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';

/** The rows of docs/aws-ledger.md whose "How sure" says *reported* or *assumed*, read from the ledger. */

export interface LedgerRow {
  /** Its "Behaviour" cell: the row's name. */
  readonly behaviour: string;
  readonly howSure: string;
  /** Its "Confirmed by" cell: a smoke check's words or a command to run by hand. */
  readonly confirmedBy: string;
}

const HEADER = 'Behaviour|AWS documentation|How sure|Confirmed by';

/** Every row of the ledger's tables (those with its four columns). */
const ledgerRows = (): LedgerRow[] => {
  const rows: LedgerRow[] = [];
  let inTable = false;
  for (const line of readFileSync(join(PROJECT_ROOT, 'docs', 'aws-ledger.md'), 'utf8').split('\n')) {
    const cells = line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim());
    if (!line.trim().startsWith('|')) inTable = false;
    else if (cells.join('|') === HEADER) inTable = true;
    else if (inTable && !cells.every((cell) => /^-*$/.test(cell))) {
      const [behaviour = '', , howSure = '', confirmedBy = ''] = cells;
      rows.push({ behaviour, howSure, confirmedBy });
    }
  }
  return rows;
};

/** What a deployment has yet to confirm: the rows AWS's documentation does not settle. */
export const rowsToConfirm = (): LedgerRow[] =>
  ledgerRows().filter((row) => /\b(reported|assumed)\b/.test(row.howSure));

/** The one row whose behaviour starts with `start`; an error if none or several do. */
export const rowNamed = (start: string): LedgerRow => {
  const found = ledgerRows().filter((row) => row.behaviour.startsWith(start));
  if (found.length !== 1)
    throw new Error(`docs/aws-ledger.md has ${found.length} rows starting "${start}", not one`);
  return found[0] as LedgerRow;
};
