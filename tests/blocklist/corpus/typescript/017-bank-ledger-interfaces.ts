// Double-entry ledger with interfaces, readonly transactions, and a trial balance report.
type AccountType = 'asset' | 'liability' | 'equity' | 'income' | 'expense';

interface Account {
  readonly code: string;
  readonly name: string;
  readonly type: AccountType;
}

interface Posting {
  readonly account: string;
  readonly amount: number; // positive = debit, negative = credit (in cents)
}

interface Transaction {
  readonly id: number;
  readonly date: string;
  readonly memo: string;
  readonly postings: readonly Posting[];
}

class UnbalancedError extends Error {
  constructor(readonly difference: number) {
    super(`transaction does not balance (off by ${(difference / 100).toFixed(2)})`);
  }
}

class Ledger {
  private readonly accounts = new Map<string, Account>();
  private readonly transactions: Transaction[] = [];
  private nextId = 1;

  open(...accounts: Account[]): this {
    accounts.forEach((a) => this.accounts.set(a.code, a));
    return this;
  }

  post(date: string, memo: string, postings: Posting[]): Transaction {
    const diff = postings.reduce((s, p) => s + p.amount, 0);
    if (diff !== 0) throw new UnbalancedError(diff);
    const unknown = postings.find((p) => !this.accounts.has(p.account));
    if (unknown) throw new Error(`unknown account ${unknown.account}`);
    const tx: Transaction = Object.freeze({ id: this.nextId++, date, memo, postings: Object.freeze([...postings]) });
    this.transactions.push(tx);
    return tx;
  }

  balances(): Map<string, number> {
    const b = new Map<string, number>([...this.accounts.keys()].map((k) => [k, 0]));
    for (const tx of this.transactions) for (const p of tx.postings) b.set(p.account, b.get(p.account)! + p.amount);
    return b;
  }

  trialBalance(): string {
    const money = (c: number) => (c / 100).toFixed(2).padStart(10);
    let dr = 0, cr = 0;
    const lines = [...this.balances()].map(([code, bal]) => {
      const acct = this.accounts.get(code)!;
      if (bal >= 0) dr += bal; else cr -= bal;
      return `${code} ${acct.name.padEnd(20)} ${bal >= 0 ? money(bal) : ' '.repeat(10)} ${bal < 0 ? money(-bal) : ''}`;
    });
    return [...lines, `${' '.repeat(25)} ${money(dr)} ${money(cr)}`].join('\n');
  }

  netIncome(): number {
    const b = this.balances();
    return -[...this.accounts.values()].filter((a) => a.type === 'income' || a.type === 'expense').reduce((s, a) => s + b.get(a.code)!, 0);
  }
}

const ledger = new Ledger().open(
  { code: '1000', name: 'Cash', type: 'asset' },
  { code: '1200', name: 'Receivables', type: 'asset' },
  { code: '2000', name: 'Payables', type: 'liability' },
  { code: '3000', name: "Owner's equity", type: 'equity' },
  { code: '4000', name: 'Sales', type: 'income' },
  { code: '5000', name: 'Rent', type: 'expense' },
);

ledger.post('2024-01-01', 'owner investment', [{ account: '1000', amount: 1_000_000 }, { account: '3000', amount: -1_000_000 }]);
ledger.post('2024-01-05', 'invoice #1', [{ account: '1200', amount: 250_000 }, { account: '4000', amount: -250_000 }]);
ledger.post('2024-01-10', 'rent for January', [{ account: '5000', amount: 120_000 }, { account: '2000', amount: -120_000 }]);
ledger.post('2024-01-20', 'invoice #1 paid', [{ account: '1000', amount: 250_000 }, { account: '1200', amount: -250_000 }]);
for (const bad of [
  () => ledger.post('2024-01-21', 'typo', [{ account: '1000', amount: 5_000 }, { account: '4000', amount: -500 }]),
  () => ledger.post('2024-01-22', 'wrong code', [{ account: '9999', amount: 100 }, { account: '1000', amount: -100 }]),
]) {
  try { bad(); } catch (e) { console.log(`rejected: ${(e as Error).message}`); }
}
console.log(ledger.trialBalance());
console.log(`net income: ${(ledger.netIncome() / 100).toFixed(2)}`);
