import pandas as pd
from sklearn.datasets import make_moons
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

X, y = make_moons(n_samples=400, noise=0.25, random_state=7)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=7)

pipe = Pipeline([("scale", StandardScaler()), ("svc", SVC())])
grid = [
    {"svc__kernel": ["linear"], "svc__C": [0.1, 1, 10]},
    {"svc__kernel": ["rbf"], "svc__C": [0.1, 1, 10, 100], "svc__gamma": [0.1, 1, 10]},
]
search = GridSearchCV(pipe, grid, cv=StratifiedKFold(5, shuffle=True, random_state=7),
                      scoring="accuracy", n_jobs=1, return_train_score=True)
search.fit(X_train, y_train)

results = pd.DataFrame(search.cv_results_)
cols = ["param_svc__kernel", "param_svc__C", "param_svc__gamma", "mean_train_score", "mean_test_score", "rank_test_score"]
print(results[cols].sort_values("rank_test_score").head(8).to_string(index=False))

print("\nbest params:", search.best_params_)
print(f"best CV accuracy: {search.best_score_:.3f}")
print(f"held-out accuracy: {search.score(X_test, y_test):.3f}")

overfit = results.assign(gap=results.mean_train_score - results.mean_test_score).sort_values("gap").tail(1)
print("\nlargest train/test gap:",
      overfit[["param_svc__kernel", "param_svc__C", "param_svc__gamma", "gap"]].to_dict("records")[0])
print("support vectors in best model:", search.best_estimator_.named_steps["svc"].n_support_)
