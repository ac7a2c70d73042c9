import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from scipy import stats

rng = np.random.default_rng(2024)
n_a, n_b = 4000, 4000
conv_a = rng.random(n_a) < 0.110
conv_b = rng.random(n_b) < 0.124
revenue_a = np.where(conv_a, rng.gamma(2.0, 25.0, n_a), 0.0)
revenue_b = np.where(conv_b, rng.gamma(2.1, 25.0, n_b), 0.0)
df = pd.DataFrame({
    "variant": ["A"] * n_a + ["B"] * n_b,
    "converted": np.concatenate([conv_a, conv_b]),
    "revenue": np.concatenate([revenue_a, revenue_b]),
})

summary = df.groupby("variant").agg(users=("converted", "size"), conversions=("converted", "sum"),
                                    rate=("converted", "mean"), revenue_per_user=("revenue", "mean"))
print(summary.round(4).to_string())

# Two-proportion z-test by hand, and chi-square from scipy for comparison.
x = summary.conversions.to_numpy()
n = summary.users.to_numpy()
p_pool = x.sum() / n.sum()
se = np.sqrt(p_pool * (1 - p_pool) * (1 / n[0] + 1 / n[1]))
z = (x[1] / n[1] - x[0] / n[0]) / se
p_z = 2 * stats.norm.sf(abs(z))
chi2, p_chi, _, _ = stats.chi2_contingency(np.array([x, n - x]).T, correction=False)
print(f"\nconversion: z = {z:.3f}, p = {p_z:.4f}; chi2 = {chi2:.3f}, p = {p_chi:.4f}")

lift = x[1] / n[1] - x[0] / n[0]
se_diff = np.sqrt(x[0] / n[0] * (1 - x[0] / n[0]) / n[0] + x[1] / n[1] * (1 - x[1] / n[1]) / n[1])
print(f"absolute lift {lift:.4f}, 95% CI [{lift - 1.96 * se_diff:.4f}, {lift + 1.96 * se_diff:.4f}]")

u = stats.mannwhitneyu(revenue_b, revenue_a, alternative="two-sided")
t = stats.ttest_ind(revenue_b, revenue_a, equal_var=False)
print(f"revenue: Welch t = {t.statistic:.3f} (p={t.pvalue:.4f}); Mann-Whitney p = {u.pvalue:.4f}")

boot = [rng.choice(revenue_b, n_b).mean() - rng.choice(revenue_a, n_a).mean() for _ in range(500)]
lo, hi = np.percentile(boot, [2.5, 97.5])
print(f"bootstrap 95% CI for revenue/user difference: [{lo:.3f}, {hi:.3f}]")

posterior_a = stats.beta(1 + x[0], 1 + n[0] - x[0])
posterior_b = stats.beta(1 + x[1], 1 + n[1] - x[1])
samples = posterior_b.rvs(20000, random_state=1) - posterior_a.rvs(20000, random_state=2)
print(f"Bayesian P(B > A) = {(samples > 0).mean():.3f}")

fig, axes = plt.subplots(1, 2, figsize=(11, 4))
sns.barplot(data=df, x="variant", y="converted", ax=axes[0], errorbar=("ci", 95), n_boot=200)
axes[0].set_title("Conversion rate with 95% CI")
sns.histplot(samples, ax=axes[1], bins=60, kde=True)
axes[1].axvline(0, color="k", ls="--")
axes[1].set_title("Posterior of rate(B) - rate(A)")
fig.tight_layout()
fig.savefig("/work/ab_test.png", dpi=80)
print("saved /work/ab_test.png")
