from enum import Enum, auto


class State(Enum):
    IDLE = auto()
    HAS_MONEY = auto()
    DISPENSING = auto()
    OUT_OF_SERVICE = auto()


class VendingMachine:
    PRICES = {"A1": 120, "A2": 150, "B1": 90}

    def __init__(self, stock):
        self.state = State.IDLE
        self.balance = 0
        self.stock = dict(stock)
        self.log = []

    def _go(self, new_state, note=""):
        self.log.append(f"{self.state.name} -> {new_state.name} {note}".strip())
        self.state = new_state

    def insert(self, cents):
        if self.state is State.OUT_OF_SERVICE:
            return f"refund {cents}: machine out of service"
        if cents not in (10, 20, 50, 100, 200):
            return f"rejected coin {cents}"
        self.balance += cents
        if self.state is State.IDLE:
            self._go(State.HAS_MONEY, f"(+{cents})")
        return f"balance {self.balance}"

    def select(self, code):
        if self.state is not State.HAS_MONEY:
            return "insert money first"
        if code not in self.PRICES:
            return f"unknown product {code}"
        if self.stock.get(code, 0) == 0:
            return f"{code} sold out"
        price = self.PRICES[code]
        if self.balance < price:
            return f"need {price - self.balance} more"
        self._go(State.DISPENSING, code)
        self.stock[code] -= 1
        change, self.balance = self.balance - price, 0
        self._go(State.OUT_OF_SERVICE if not any(self.stock.values()) else State.IDLE)
        return f"dispensed {code}, change {change}"

    def cancel(self):
        refund, self.balance = self.balance, 0
        if self.state is State.HAS_MONEY:
            self._go(State.IDLE, "cancel")
        return f"refunded {refund}"


def main():
    vm = VendingMachine({"A1": 1, "A2": 1, "B1": 0})
    script = [("select", "A1"), ("insert", 100), ("insert", 5), ("select", "B1"), ("select", "A1"),
              ("insert", 50), ("select", "A1"), ("insert", 200), ("select", "A1"), ("cancel", None),
              ("insert", 200), ("select", "A2"), ("insert", 100)]
    for action, arg in script:
        result = getattr(vm, action)(*([] if arg is None else [arg]))
        print(f"{action:>6}({'' if arg is None else arg!r:>4}) -> {result:<28} [{vm.state.name}]")
    print("\ntransitions:")
    for entry in vm.log:
        print("  ", entry)
    assert vm.state is State.OUT_OF_SERVICE


if __name__ == "__main__":
    main()
