import numpy as np
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import classification_report, roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

X, y = make_classification(n_samples=800, n_features=12, n_informative=5, n_redundant=2,
                           weights=[0.7, 0.3], random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)

for C in (0.01, 0.1, 1.0, 10.0):
    model = make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=500))
    model.fit(X_train, y_train)
    proba = model.predict_proba(X_test)[:, 1]
    print(f"C={C:<5} accuracy={model.score(X_test, y_test):.3f} ROC-AUC={roc_auc_score(y_test, proba):.3f}")

best = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, class_weight="balanced", max_iter=500))
best.fit(X_train, y_train)
print("\nclass_weight='balanced':")
print(classification_report(y_test, best.predict(X_test), digits=3))

coefs = best.named_steps["logisticregression"].coef_[0]
order = np.argsort(-np.abs(coefs))
print("most influential features:")
for i in order[:5]:
    print(f"  feature_{i:<2} coef={coefs[i]:+.3f}")

# Decision threshold sweep: trade precision for recall.
proba = best.predict_proba(X_test)[:, 1]
for threshold in (0.3, 0.5, 0.7):
    pred = proba >= threshold
    tp = np.sum(pred & (y_test == 1))
    precision = tp / max(pred.sum(), 1)
    recall = tp / np.sum(y_test == 1)
    print(f"threshold {threshold}: precision={precision:.2f} recall={recall:.2f}")
