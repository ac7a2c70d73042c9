"""Summarise a small CSV of monthly expenses per category."""
import csv
import io
import statistics
from collections import defaultdict

RAW = '''date,category,amount,note
2024-01-03,groceries,54.20,weekly shop
2024-01-05,transport,12.00,bus pass top-up
2024-01-09,groceries,61.75,
2024-01-12,utilities,88.10,"electricity, gas"
2024-01-15,dining,23.40,"lunch with ""Sam"""
2024-01-18,groceries,47.95,
2024-01-22,transport,30.00,train tickets
2024-01-27,dining,41.10,birthday dinner
2024-01-30,utilities,35.00,internet
'''


def load_rows(text):
    reader = csv.DictReader(io.StringIO(text))
    rows = []
    for row in reader:
        row["amount"] = float(row["amount"])
        rows.append(row)
    return rows


def summarise(rows):
    by_cat = defaultdict(list)
    for row in rows:
        by_cat[row["category"]].append(row["amount"])
    summary = {}
    for cat, amounts in sorted(by_cat.items()):
        summary[cat] = {
            "count": len(amounts),
            "total": round(sum(amounts), 2),
            "mean": round(statistics.mean(amounts), 2),
            "max": max(amounts),
        }
    return summary


def main():
    rows = load_rows(RAW)
    summary = summarise(rows)
    grand_total = sum(s["total"] for s in summary.values())
    print(f"{'category':<12}{'n':>3}{'total':>10}{'mean':>9}{'max':>9}{'share':>8}")
    print("-" * 51)
    for cat, s in summary.items():
        share = s["total"] / grand_total * 100
        print(f"{cat:<12}{s['count']:>3}{s['total']:>10.2f}{s['mean']:>9.2f}{s['max']:>9.2f}{share:>7.1f}%")
    print("-" * 51)
    print(f"{'TOTAL':<12}{len(rows):>3}{grand_total:>10.2f}")

    noted = [r for r in rows if r["note"]]
    print(f"\n{len(noted)} rows carry a note; the longest is {max(noted, key=lambda r: len(r['note']))['note']!r}")

    with open("expense_summary.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["category", "count", "total", "mean", "max"])
        for cat, s in summary.items():
            writer.writerow([cat, s["count"], s["total"], s["mean"], s["max"]])
    print("wrote expense_summary.csv")


if __name__ == "__main__":
    main()
