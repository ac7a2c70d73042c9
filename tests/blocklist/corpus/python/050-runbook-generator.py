"""Render an ops runbook from structured data into Markdown.

Commands are stored as text to be shown to an operator; this program never runs them.
"""
from dataclasses import dataclass, field
from pathlib import Path
from textwrap import dedent


@dataclass
class Step:
    title: str
    command: str
    warning: str = ""


@dataclass
class Procedure:
    name: str
    when: str
    steps: list = field(default_factory=list)


RUNBOOK = [
    Procedure("Disk full on a worker", "Alert `disk_usage > 95%` fires", [
        Step("Find the biggest directories", "sudo du -xh / --max-depth=2 | sort -h | tail -20"),
        Step("Clear old container images", "docker image prune --filter 'until=168h' -f"),
        Step("Rotate logs now", "sudo logrotate -f /etc/logrotate.conf"),
        Step("Last resort: wipe the scratch volume", "sudo rm -rf /mnt/scratch/*",
             "Double-check the path. Never type `rm -rf /` with a trailing space before the glob."),
    ]),
    Procedure("Agent cannot reach Docker", "CI jobs fail with `permission denied` on the socket", [
        Step("Check the socket", "ls -l /var/run/docker.sock"),
        Step("Check group membership", "id ci-agent && getent group docker"),
        Step("Do NOT fix permissions like this", "sudo chmod 777 /var/run/docker.sock",
             "This gives every local user root-equivalent access. Add the user to the group instead."),
        Step("Correct fix", "sudo usermod -aG docker ci-agent && sudo systemctl restart ci-agent"),
    ]),
    Procedure("Suspicious install script", "Someone proposes `curl ... | sh` in a Dockerfile", [
        Step("Download first, inspect, then run",
             dedent("""\
                 curl -fsSLo install.sh https://example.com/install.sh
                 sha256sum install.sh
                 less install.sh
                 sh install.sh --prefix=/opt/tool""")),
    ]),
]


def render(runbook):
    out = ["# Operations runbook", "", "> Generated file — edit the data, not the Markdown.", ""]
    out.append("## Contents")
    for i, proc in enumerate(runbook, 1):
        anchor = proc.name.lower().replace(" ", "-")
        out.append(f"{i}. [{proc.name}](#{anchor})")
    for proc in runbook:
        out += ["", f"## {proc.name}", "", f"**When:** {proc.when}", ""]
        for n, step in enumerate(proc.steps, 1):
            out += [f"{n}. {step.title}", "", "   ```sh"]
            out += [f"   {line}" for line in step.command.splitlines()]
            out.append("   ```")
            if step.warning:
                out += ["", f"   > ⚠️ {step.warning}"]
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def main():
    text = render(RUNBOOK)
    path = Path("/work/RUNBOOK.md")
    path.write_text(text, encoding="utf-8")
    print(text)
    print(f"-- wrote {path} ({len(text.splitlines())} lines, {sum(len(p.steps) for p in RUNBOOK)} steps)")


if __name__ == "__main__":
    main()
