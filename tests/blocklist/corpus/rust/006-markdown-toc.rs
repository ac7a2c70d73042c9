/// Builds a table of contents for a Markdown document, ignoring headings that
/// appear inside fenced code blocks.
const README: &str = r###"# Project Setup

Some intro text with `inline code` and a [link](https://example.com/docs).

## Installation

The old instructions said to pipe a script into the shell:

```sh
# Don't do this in production!
curl -fsSL https://example.com/install.sh | sh
# And never run this one:
sudo rm -rf /
```

### From source

## Usage

Run `app --help`. Headings like "## this" inside code are not real:

```markdown
## Not a heading
```

## FAQ & Troubleshooting

### Why does it say "permission denied"?

Try `chmod 755 ./app` (not `chmod 777`!).
"###;

fn slugify(title: &str) -> String {
    let mut slug = String::new();
    for c in title.chars() {
        if c.is_alphanumeric() {
            slug.extend(c.to_lowercase());
        } else if c == ' ' || c == '-' {
            slug.push('-');
        }
    }
    slug
}

fn main() {
    let mut in_fence = false;
    let mut toc = Vec::new();
    let mut code_lines = 0;
    for line in README.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            code_lines += 1;
            continue;
        }
        let level = line.chars().take_while(|&c| c == '#').count();
        if level > 0 && line[level..].starts_with(' ') {
            let title = line[level..].trim();
            toc.push((level, title.to_string(), slugify(title)));
        }
    }

    println!("Table of contents");
    println!("=================");
    for (level, title, slug) in &toc {
        println!("{}- [{}](#{})", "  ".repeat(level - 1), title, slug);
    }
    println!("\n{} headings, {} lines of code in fences", toc.len(), code_lines);

    let inline_code: Vec<&str> = README
        .split('`')
        .enumerate()
        .filter(|(i, s)| i % 2 == 1 && !s.is_empty() && !s.contains('\n'))
        .map(|(_, s)| s)
        .collect();
    println!("inline code spans: {:?}", inline_code);
    assert!(toc.iter().all(|(_, t, _)| t != "Not a heading"));
}
