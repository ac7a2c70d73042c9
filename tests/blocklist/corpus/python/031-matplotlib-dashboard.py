import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

rng = np.random.default_rng(11)
days = np.arange(1, 91)
visitors = 500 + 4 * days + 80 * np.sin(days / 7 * 2 * np.pi) + rng.normal(0, 40, days.size)
signups = rng.binomial(visitors.astype(int), 0.035)
latency = rng.lognormal(mean=4.6, sigma=0.35, size=2000)
channels = {"search": 41, "direct": 23, "social": 18, "email": 11, "other": 7}

fig, axes = plt.subplots(2, 2, figsize=(11, 7), constrained_layout=True)
fig.suptitle("Site metrics — Q1", fontsize=14)

ax = axes[0, 0]
ax.plot(days, visitors, lw=1, color="tab:blue", alpha=0.6, label="daily")
kernel = np.ones(7) / 7
ax.plot(days[3:-3], np.convolve(visitors, kernel, mode="valid"), lw=2, color="tab:blue", label="7-day mean")
ax.set(title="Visitors", xlabel="day", ylabel="count")
ax.legend()

ax = axes[0, 1]
rate = signups / visitors * 100
ax.bar(days, rate, color=np.where(rate > rate.mean(), "tab:green", "tab:gray"), width=0.9)
ax.axhline(rate.mean(), ls="--", color="k", lw=1)
ax.set(title="Conversion rate (%)", xlabel="day")

ax = axes[1, 0]
ax.hist(latency, bins=40, color="tab:orange", edgecolor="white")
for q, style in [(50, "-"), (95, "--"), (99, ":")]:
    v = np.percentile(latency, q)
    ax.axvline(v, color="k", ls=style, lw=1)
    ax.text(v, ax.get_ylim()[1] * 0.9, f" p{q}={v:.0f}ms", fontsize=8)
ax.set(title="Response time", xlabel="ms")

ax = axes[1, 1]
ax.pie(list(channels.values()), labels=list(channels), autopct="%1.0f%%", startangle=90)
ax.set(title="Traffic by channel")

out = "/work/dashboard.png"
fig.savefig(out, dpi=80)
plt.close(fig)
print("saved", out)
print(f"visitors: mean {visitors.mean():.0f}, max {visitors.max():.0f} on day {days[visitors.argmax()]}")
print(f"latency p50/p95/p99: {np.percentile(latency, [50, 95, 99]).round(1)}")
