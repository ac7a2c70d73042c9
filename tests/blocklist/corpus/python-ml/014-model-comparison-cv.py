import time

import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_validate
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

data = load_breast_cancer()
X, y = data.data, data.target
print(f"dataset: {X.shape[0]} samples, {X.shape[1]} features, classes {dict(zip(data.target_names, [sum(y == 0), sum(y == 1)]))}")

models = {
    "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
    "knn(k=7)": make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=7)),
    "naive bayes": GaussianNB(),
    "decision tree": DecisionTreeClassifier(max_depth=5, random_state=0),
    "random forest": RandomForestClassifier(n_estimators=60, random_state=0, n_jobs=1),
}
cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
rows = []
for name, model in models.items():
    t0 = time.perf_counter()
    res = cross_validate(model, X, y, cv=cv, scoring=["accuracy", "f1", "roc_auc"], n_jobs=1)
    rows.append({
        "model": name,
        "accuracy": res["test_accuracy"].mean(),
        "acc_std": res["test_accuracy"].std(),
        "f1": res["test_f1"].mean(),
        "roc_auc": res["test_roc_auc"].mean(),
        "seconds": time.perf_counter() - t0,
    })

table = pd.DataFrame(rows).set_index("model").sort_values("roc_auc", ascending=False)
print(table.round(4).to_string())
winner = table.index[0]
print(f"\nbest by ROC-AUC: {winner}")
table.to_csv("/work/model_comparison.csv")
