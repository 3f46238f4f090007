/** ISO 4217 currencies with two minor units that the sandbox accepts. */
export interface Currency {
  readonly code: string;
  readonly numeric: string;
  readonly name: string;
}

const TABLE: readonly Currency[] = [
  { code: 'SGD', numeric: '702', name: 'Singapore dollar' },
  { code: 'USD', numeric: '840', name: 'US dollar' },
  { code: 'EUR', numeric: '978', name: 'Euro' },
  { code: 'GBP', numeric: '826', name: 'Pound sterling' },
  { code: 'AUD', numeric: '036', name: 'Australian dollar' },
  { code: 'NZD', numeric: '554', name: 'New Zealand dollar' },
  { code: 'CAD', numeric: '124', name: 'Canadian dollar' },
  { code: 'CHF', numeric: '756', name: 'Swiss franc' },
  { code: 'HKD', numeric: '344', name: 'Hong Kong dollar' },
  { code: 'CNY', numeric: '156', name: 'Renminbi' },
  { code: 'MYR', numeric: '458', name: 'Malaysian ringgit' },
  { code: 'THB', numeric: '764', name: 'Thai baht' },
  { code: 'PHP', numeric: '608', name: 'Philippine peso' },
  { code: 'INR', numeric: '356', name: 'Indian rupee' },
  { code: 'IDR', numeric: '360', name: 'Indonesian rupiah' },
];

const BY_CODE = new Map(TABLE.map((c) => [c.code, c]));

export const CURRENCY_CODES: readonly string[] = TABLE.map((c) => c.code);

export function findCurrency(code: string): Currency | undefined {
  return BY_CODE.get(code);
}

/** Units of each currency per one USD; loaded from data/rates.json by the services. */
export type RateTable = Readonly<Record<string, number>>;

/** Converts minor units between currencies through USD, rounding half away from zero. */
export function convertMinorUnits(minor: number, from: string, to: string, rates: RateTable): number | undefined {
  if (from === to) return minor;
  const fromRate = rates[from];
  const toRate = rates[to];
  if (fromRate === undefined || toRate === undefined) return undefined;
  return Math.round((minor / fromRate) * toRate);
}
