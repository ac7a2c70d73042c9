from collections import defaultdict
from datetime import date
from decimal import Decimal, InvalidOperation, ROUND_HALF_EVEN


class InsufficientFunds(Exception):
    pass


class Ledger:
    """Double-entry ledger: every transaction debits one account and credits another."""

    def __init__(self):
        self.entries = []
        self.balances = defaultdict(Decimal)
        self.overdraft = {"cash": Decimal("0"), "checking": Decimal("-200")}

    def post(self, day, debit, credit, amount, memo=""):
        try:
            amount = Decimal(amount).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
        except InvalidOperation:
            raise ValueError(f"not a valid amount: {amount!r}") from None
        if amount <= 0:
            raise ValueError("amount must be positive")
        limit = self.overdraft.get(credit)
        if limit is not None and self.balances[credit] - amount < limit:
            raise InsufficientFunds(f"{credit} would drop to {self.balances[credit] - amount}")
        self.balances[debit] += amount
        self.balances[credit] -= amount
        self.entries.append((day, debit, credit, amount, memo))

    def statement(self, account):
        running = Decimal(0)
        print(f"statement for {account}")
        for day, debit, credit, amount, memo in self.entries:
            if account not in (debit, credit):
                continue
            delta = amount if debit == account else -amount
            running += delta
            print(f"  {day}  {memo:<22} {delta:>+10}  {running:>10}")

    def check(self):
        assert sum(self.balances.values()) == 0, "books do not balance!"


def main():
    L = Ledger()
    d = date(2024, 6, 1)
    L.post(d, "checking", "salary", "3200.00", "June salary")
    L.post(d.replace(day=2), "rent", "checking", "1150", "rent")
    L.post(d.replace(day=3), "groceries", "checking", "84.456", "supermarket")
    L.post(d.replace(day=3), "cash", "checking", "100", "ATM withdrawal")
    L.post(d.replace(day=5), "coffee", "cash", "3.10", "espresso")
    L.post(d.replace(day=9), "savings", "checking", "1000", "monthly saving")
    for args in [("cash", "coffee", "-5"), ("coffee", "cash", "500"), ("coffee", "cash", "abc"),
                 ("travel", "checking", "1200")]:
        try:
            L.post(d.replace(day=10), *args, memo="attempt")
        except (ValueError, InsufficientFunds) as exc:
            print(f"rejected {args}: {type(exc).__name__}: {exc}")
    L.check()
    print()
    L.statement("checking")
    print("\nbalances:")
    for acct, bal in sorted(L.balances.items()):
        print(f"  {acct:<10} {bal:>10}")
    print("\nbanker's rounding:", [str(Decimal(x).quantize(Decimal('1'), ROUND_HALF_EVEN)) for x in ("0.5", "1.5", "2.5")])
    print("float vs Decimal:", 0.1 + 0.2, Decimal("0.1") + Decimal("0.2"))


if __name__ == "__main__":
    main()
