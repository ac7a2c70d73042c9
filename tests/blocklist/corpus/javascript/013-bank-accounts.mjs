// Class hierarchy for bank accounts with private fields, validation, interest and a ledger.
class InsufficientFunds extends Error {
  constructor(account, amount) {
    super(`account ${account.id} cannot cover ${amount.toFixed(2)} (balance ${account.balance.toFixed(2)})`);
    this.name = 'InsufficientFunds';
  }
}

class Account {
  static #nextId = 1000;
  #balance = 0;
  #history = [];
  constructor(owner) {
    this.owner = owner;
    this.id = Account.#nextId++;
  }
  get balance() { return this.#balance; }
  get history() { return [...this.#history]; }
  deposit(amount, memo = 'deposit') {
    if (!(amount > 0)) throw new RangeError(`invalid amount: ${amount}`);
    this.#balance += amount;
    this.#history.push({ memo, amount });
  }
  withdraw(amount, memo = 'withdrawal') {
    if (amount > this.available()) throw new InsufficientFunds(this, amount);
    this.#balance -= amount;
    this.#history.push({ memo, amount: -amount });
  }
  available() { return this.#balance; }
  monthEnd() {}
  toString() { return `${this.constructor.name}#${this.id} (${this.owner}): ${this.#balance.toFixed(2)}`; }
}

class Savings extends Account {
  constructor(owner, rate) { super(owner); this.rate = rate; }
  monthEnd() {
    const interest = Math.round(this.balance * this.rate / 12 * 100) / 100;
    if (interest > 0) this.deposit(interest, 'interest');
  }
}

class Checking extends Account {
  constructor(owner, overdraft) { super(owner); this.overdraft = overdraft; }
  available() { return this.balance + this.overdraft; }
  monthEnd() {
    if (this.balance < 0) this.withdraw(Math.min(15, this.available()), 'overdraft fee');
  }
}

function transfer(from, to, amount) {
  from.withdraw(amount, `transfer to ${to.id}`);
  to.deposit(amount, `transfer from ${from.id}`);
}

const alice = new Savings('Alice', 0.035);
const bob = new Checking('Bob', 200);
alice.deposit(5000);
bob.deposit(120);
transfer(bob, alice, 250);
try {
  transfer(bob, alice, 500);
} catch (e) {
  console.log(`${e.name}: ${e.message}`);
}
for (let month = 1; month <= 3; month++) [alice, bob].forEach((a) => a.monthEnd());
for (const acct of [alice, bob]) {
  console.log(String(acct));
  for (const { memo, amount } of acct.history) console.log(`   ${memo.padEnd(20)} ${amount.toFixed(2).padStart(9)}`);
}
