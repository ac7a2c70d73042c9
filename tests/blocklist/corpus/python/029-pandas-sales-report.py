import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
dates = pd.date_range("2024-01-01", "2024-06-30", freq="D")
regions = ["North", "South", "East", "West"]
products = {"Basic": 9.99, "Plus": 19.99, "Pro": 49.0}

rows = []
for d in dates:
    for region in regions:
        for product, price in products.items():
            qty = rng.poisson(12 if product == "Basic" else 5 if product == "Plus" else 2)
            if d.dayofweek >= 5:
                qty = int(qty * 0.6)
            rows.append((d, region, product, qty, price))

df = pd.DataFrame(rows, columns=["date", "region", "product", "qty", "unit_price"])
df["revenue"] = df["qty"] * df["unit_price"]
df["month"] = df["date"].dt.to_period("M")

print("rows:", len(df), "| total revenue:", f"{df['revenue'].sum():,.2f}")

monthly = df.pivot_table(index="month", columns="region", values="revenue", aggfunc="sum").round(0)
monthly["total"] = monthly.sum(axis=1)
monthly["mom_%"] = monthly["total"].pct_change().mul(100).round(1)
print("\nrevenue per month and region:")
print(monthly.to_string())

by_product = (df.groupby("product")
                .agg(units=("qty", "sum"), revenue=("revenue", "sum"), days_zero=("qty", lambda s: (s == 0).sum()))
                .sort_values("revenue", ascending=False))
by_product["share"] = (by_product["revenue"] / by_product["revenue"].sum()).map("{:.1%}".format)
print("\nby product:")
print(by_product)

weekly = df.set_index("date").resample("W")["revenue"].sum()
rolling = weekly.rolling(4).mean()
best_week = weekly.idxmax()
print(f"\nbest week ending {best_week:%Y-%m-%d}: {weekly.max():,.0f}")
print("last 4-week rolling mean:", round(rolling.iloc[-1], 1))

weekday = df.assign(weekday=df["date"].dt.day_name()).groupby("weekday")["qty"].mean()
order = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
print("\naverage units per row by weekday:")
print(weekday.reindex(order).round(2).to_string())

monthly.to_csv("/work/monthly_revenue.csv")
df.head(50).to_json("/work/sales_sample.json", orient="records", date_format="iso")
print("\nsaved monthly_revenue.csv and sales_sample.json")
