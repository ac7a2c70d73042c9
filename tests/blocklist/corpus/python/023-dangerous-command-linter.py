"""Review shell snippets pasted into a CI config and warn about risky commands.

The rules below are plain regular expressions matched against text; nothing is executed.
"""
import re
from dataclasses import dataclass

RULES = [
    ("recursive delete of root", r"\brm\s+-(?:[a-z]*r[a-z]*f|[a-z]*f[a-z]*r)[a-z]*\s+/(?:\s|$|\*)", "high"),
    ("pipe download to shell", r"\b(?:curl|wget)\b[^|]*\|\s*(?:sudo\s+)?(?:ba|z)?sh\b", "high"),
    ("fork bomb", r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:", "high"),
    ("world-writable permissions", r"\bchmod\s+(?:-R\s+)?0?777\b", "medium"),
    ("privilege escalation", r"\bsudo\b", "medium"),
    ("docker socket exposure", r"/var/run/docker\.sock", "high"),
    ("reads password database", r"/etc/(?:passwd|shadow)\b", "medium"),
    ("disk overwrite", r"\bdd\s+if=\S+\s+of=/dev/sd[a-z]\b", "high"),
]
COMPILED = [(name, re.compile(rx), sev) for name, rx, sev in RULES]


@dataclass
class Finding:
    line: int
    rule: str
    severity: str
    text: str


def lint(script):
    findings = []
    for n, line in enumerate(script.splitlines(), 1):
        code = line.split("#", 1)[0] if not line.lstrip().startswith("#!") else ""
        for name, rx, sev in COMPILED:
            if rx.search(code):
                findings.append(Finding(n, name, sev, line.strip()))
    return findings


SNIPPETS = {
    "install.sh": """#!/bin/sh
set -e
curl -fsSL https://example.com/install.sh | sh
chmod 777 /opt/app
""",
    "cleanup.sh": """# never do: rm -rf /   (this comment must not be flagged)
rm -rf ./build/ dist/
rm -rf / --no-preserve-root
""",
    "prank.sh": """echo "about to be clever"
:(){ :|:& };:
""",
    "deploy.sh": """docker run -v /var/run/docker.sock:/var/run/docker.sock ci-agent
sudo systemctl restart app
grep root /etc/passwd
""",
    "safe.sh": """ls -la
tar czf backup.tgz data/
echo 'done'
""",
}


def main():
    total = 0
    for name, script in SNIPPETS.items():
        findings = lint(script)
        total += len(findings)
        status = "clean" if not findings else f"{len(findings)} finding(s)"
        print(f"== {name}: {status}")
        for f in findings:
            print(f"   line {f.line} [{f.severity:^6}] {f.rule}: {f.text}")
    assert not lint(SNIPPETS["safe.sh"])
    assert [f.line for f in lint(SNIPPETS["cleanup.sh"])] == [3]
    assert lint(SNIPPETS["prank.sh"])[0].rule == "fork bomb"
    print(f"\n{total} findings across {len(SNIPPETS)} scripts")


if __name__ == "__main__":
    main()
