from decimal import Decimal, ROUND_HALF_UP
from string import Template

ROWS = [
    ("Widget, small", 1200, Decimal("0.35")),
    ("Widget, large", 340, Decimal("1.10")),
    ("Gadget \"Pro\"", 55, Decimal("24.99")),
    ("Ünïcødé adapter", 17, Decimal("7.50")),
    ("Cable 2m", 980, Decimal("2.05")),
]

HEADER = Template("""\
Quarterly report for $company
Period: $period
Prepared by: $author
""")


def money(value):
    return f"€{value.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP):>10,}"


def table(rows):
    width = max(len(name) for name, *_ in rows)
    lines = [f"{'item':<{width}} | {'qty':>6} | {'unit':>11} | {'total':>11}",
             f"{'-' * width}-+-{'-' * 6}-+-{'-' * 11}-+-{'-' * 11}"]
    grand = Decimal(0)
    for name, qty, price in rows:
        total = qty * price
        grand += total
        lines.append(f"{name:<{width}} | {qty:>6,} | {money(price)} | {money(total)}")
    lines.append(f"{'':<{width}}   {'':>6}   {'TOTAL':>11} | {money(grand)}")
    return "\n".join(lines), grand


def main():
    print(HEADER.substitute(company="ACME B.V.", period="Q3 2024", author="finance-bot"))
    body, grand = table(ROWS)
    print(body)
    print()
    print(f"{'percent of total':-^40}")
    for name, qty, price in ROWS:
        share = qty * price / grand
        bar = "▇" * int(share * 30)
        print(f"{name[:14]:<14} {share:6.1%} {bar}")
    print()
    print("numbers in other notations:", f"{255:#x} {255:#o} {255:#b} {1234567.891:.3e} {0.000123:g}")
    print("alignment:", f"[{'left':<8}] [{'mid':^8}] [{'right':>8}] [{42:+05d}]")
    nested = {"w": 12, "p": 3}
    print("nested spec:", f"[{3.14159265:{nested['w']}.{nested['p']}f}]")
    tabbed = "tab\there"
    print("repr vs str:", f"{tabbed!r} vs {'plain'!s}")


if __name__ == "__main__":
    main()
