import html
import re

DOC = """# Release notes

Version **2.4** brings a few *small* fixes and one `breaking` change.

## Changes

- Faster startup (about 30% on cold cache)
- New `--dry-run` flag for the `deploy` command
- Fixed escaping of <script> tags in titles

## Upgrade

1. Stop the service
2. Run the migration
3. Start it again

```
$ deploy --dry-run --env staging
```

See [the docs](https://example.com/docs) for details.
"""

INLINE = [
    (re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
    (re.compile(r"\*\*([^*]+)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"\*([^*]+)\*"), r"<em>\1</em>"),
    (re.compile(r"\[([^\]]+)\]\(([^)]+)\)"), r'<a href="\2">\1</a>'),
]


def inline(text):
    text = html.escape(text, quote=False)
    for pattern, repl in INLINE:
        text = pattern.sub(repl, text)
    return text


def convert(markdown):
    out, list_tag, in_code = [], None, False
    for line in markdown.splitlines():
        if line.startswith("```"):
            out.append("</pre>" if in_code else "<pre>")
            in_code = not in_code
            continue
        if in_code:
            out.append(html.escape(line))
            continue
        heading = re.match(r"(#{1,6})\s+(.*)", line)
        bullet = re.match(r"[-*]\s+(.*)", line)
        numbered = re.match(r"\d+\.\s+(.*)", line)
        wanted = "ul" if bullet else "ol" if numbered else None
        if list_tag and wanted != list_tag:
            out.append(f"</{list_tag}>")
            list_tag = None
        if heading:
            level = len(heading.group(1))
            out.append(f"<h{level}>{inline(heading.group(2))}</h{level}>")
        elif wanted:
            if not list_tag:
                out.append(f"<{wanted}>")
                list_tag = wanted
            out.append(f"  <li>{inline((bullet or numbered).group(1))}</li>")
        elif line.strip():
            out.append(f"<p>{inline(line)}</p>")
    if list_tag:
        out.append(f"</{list_tag}>")
    return "\n".join(out)


if __name__ == "__main__":
    result = convert(DOC)
    print(result)
    assert "&lt;script&gt;" in result
    with open("release_notes.html", "w", encoding="utf-8") as fh:
        fh.write("<!doctype html>\n<body>\n" + result + "\n</body>\n")
    print("\nwrote release_notes.html")
