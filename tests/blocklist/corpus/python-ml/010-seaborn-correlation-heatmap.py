import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

rng = np.random.default_rng(8)
n = 300
study = rng.normal(10, 3, n).clip(0)
sleep = rng.normal(7, 1, n)
coffee = (rng.poisson(2, n) + (study > 12)).astype(float)
score = 40 + 3 * study + 2.5 * sleep - 1.2 * coffee + rng.normal(0, 6, n)
df = pd.DataFrame({
    "study_hours": study,
    "sleep_hours": sleep,
    "coffee_cups": coffee,
    "screen_time": rng.normal(4, 1.5, n).clip(0),
    "exam_score": score.clip(0, 100),
})
df["group"] = pd.cut(df.study_hours, bins=[0, 8, 12, 100], labels=["low", "mid", "high"])

corr = df.drop(columns="group").corr(method="pearson")
spearman = df.drop(columns="group").corr(method="spearman")
print("Pearson correlations with exam_score:")
print(corr["exam_score"].drop("exam_score").sort_values(ascending=False).round(3).to_string())
print("\nmax |pearson - spearman|:", float((corr - spearman).abs().to_numpy().max().round(3)))

sns.set_theme(style="white")
fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
mask = np.triu(np.ones_like(corr, dtype=bool), k=1)
sns.heatmap(corr, mask=mask, annot=True, fmt=".2f", cmap="vlag", vmin=-1, vmax=1, square=True, ax=axes[0])
axes[0].set_title("Correlation matrix")
sns.boxplot(data=df, x="group", y="exam_score", ax=axes[1], palette="crest")
sns.stripplot(data=df, x="group", y="exam_score", ax=axes[1], color="k", size=2, alpha=0.4)
axes[1].set_title("Exam score by study group")
fig.tight_layout()
fig.savefig("/work/correlations.png", dpi=80)
print("saved /work/correlations.png")
print(df.groupby("group", observed=True)["exam_score"].describe().round(1))
