import json
import pickle
from datetime import datetime, timezone
from pathlib import Path

import joblib
import numpy as np
import sklearn
from sklearn.datasets import load_wine
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

OUT = Path("/work/models")
OUT.mkdir(exist_ok=True)

data = load_wine()
X_tr, X_te, y_tr, y_te = train_test_split(data.data, data.target, test_size=0.3, random_state=0,
                                          stratify=data.target)
pipe = Pipeline([
    ("scale", StandardScaler()),
    ("select", SelectKBest(f_classif, k=6)),
    ("forest", RandomForestClassifier(n_estimators=50, random_state=0, n_jobs=1)),
]).fit(X_tr, y_tr)
acc = pipe.score(X_te, y_te)
chosen = np.array(data.feature_names)[pipe.named_steps["select"].get_support()]
print(f"test accuracy {acc:.3f} using features: {', '.join(chosen)}")

model_path = OUT / "wine_pipeline.joblib"
joblib.dump(pipe, model_path, compress=3)
metadata = {
    "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    "sklearn_version": sklearn.__version__,
    "test_accuracy": round(acc, 4),
    "features": list(chosen),
    "classes": list(map(str, data.target_names)),
}
(OUT / "wine_pipeline.json").write_text(json.dumps(metadata, indent=2))
print(f"saved {model_path.name} ({model_path.stat().st_size / 1024:.1f} KiB) and metadata")

loaded = joblib.load(model_path)
assert (loaded.predict(X_te) == pipe.predict(X_te)).all()
meta = json.loads((OUT / "wine_pipeline.json").read_text())
if meta["sklearn_version"] != sklearn.__version__:
    print("warning: model was trained with a different scikit-learn version")
print("reloaded model agrees with the original on all", len(X_te), "test rows")

# pickle works too; only ever unpickle files you created yourself.
blob = pickle.dumps(pipe.named_steps["scale"])
scaler = pickle.loads(blob)
print(f"pickled scaler: {len(blob)} bytes, means[:3] = {np.round(scaler.mean_[:3], 2)}")

sample = X_te[:3]
for row, proba in zip(sample, loaded.predict_proba(sample)):
    label = data.target_names[proba.argmax()]
    print(f"  alcohol={row[0]:.2f} -> {label} (p={proba.max():.2f})")
