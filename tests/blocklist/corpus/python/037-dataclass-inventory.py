from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import Enum


class Category(str, Enum):
    TOOLS = "tools"
    GARDEN = "garden"
    KITCHEN = "kitchen"


@dataclass(frozen=True)
class Item:
    sku: str
    name: str
    category: Category
    price_cents: int

    @property
    def price(self) -> str:
        return f"${self.price_cents / 100:.2f}"


@dataclass
class StockLine:
    item: Item
    quantity: int = 0
    reorder_level: int = 5

    def needs_reorder(self) -> bool:
        return self.quantity <= self.reorder_level


@dataclass
class Inventory:
    lines: dict[str, StockLine] = field(default_factory=dict)

    def add(self, item: Item, qty: int, reorder_level: int = 5) -> None:
        line = self.lines.setdefault(item.sku, StockLine(item, 0, reorder_level))
        line.quantity += qty

    def remove(self, sku: str, qty: int) -> None:
        line = self.lines[sku]
        if qty > line.quantity:
            raise ValueError(f"only {line.quantity} of {line.item.name} left, cannot remove {qty}")
        line.quantity -= qty

    def value_cents(self) -> int:
        return sum(l.item.price_cents * l.quantity for l in self.lines.values())

    def by_category(self) -> dict[Category, int]:
        out: dict[Category, int] = {}
        for l in self.lines.values():
            out[l.item.category] = out.get(l.item.category, 0) + l.quantity
        return out


def main():
    inv = Inventory()
    hammer = Item("T-001", "Claw hammer", Category.TOOLS, 1899)
    inv.add(hammer, 12)
    inv.add(Item("G-010", "Garden hose 25m", Category.GARDEN, 3450), 4, reorder_level=2)
    inv.add(Item("K-100", "Chef's knife", Category.KITCHEN, 5900), 7)
    inv.add(Item("T-002", "Screwdriver set", Category.TOOLS, 2499), 3)

    inv.remove("T-001", 9)
    try:
        inv.remove("G-010", 10)
    except ValueError as exc:
        print("error:", exc)

    for line in inv.lines.values():
        mark = "REORDER" if line.needs_reorder() else ""
        print(f"{line.item.sku} {line.item.name:<16} {line.item.price:>7} x{line.quantity:<3} {mark}")
    print(f"stock value: ${inv.value_cents() / 100:,.2f}")
    print("per category:", {c.value: n for c, n in inv.by_category().items()})

    snapshot = json.dumps([asdict(l) for l in inv.lines.values()], indent=1)
    print("first JSON line of snapshot:", snapshot.splitlines()[2].strip())
    try:
        hammer.price_cents = 1
    except AttributeError as exc:
        print("frozen dataclass:", type(exc).__name__)


if __name__ == "__main__":
    main()
