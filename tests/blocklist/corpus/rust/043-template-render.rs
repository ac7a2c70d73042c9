use std::collections::HashMap;
use std::fs;

/// Renders `{{name}}` placeholders and `{{#if flag}}...{{/if}}` blocks.
/// Unknown variables are an error so typos do not produce broken files.
fn render(tpl: &str, vars: &HashMap<&str, String>) -> Result<String, String> {
    let mut out = String::with_capacity(tpl.len());
    let mut rest = tpl;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let close = rest[open..].find("}}").ok_or("unclosed '{{'")? + open;
        let tag = rest[open + 2..close].trim();
        rest = &rest[close + 2..];
        if let Some(flag) = tag.strip_prefix("#if ") {
            let end = rest.find("{{/if}}").ok_or_else(|| format!("missing {{{{/if}}}} for {}", flag))?;
            let body = rest[..end].trim_start_matches('\n');
            let on = vars.get(flag.trim()).map_or(false, |v| !v.is_empty() && v != "false");
            if on {
                out.push_str(&render(body, vars)?);
            }
            rest = rest[end + "{{/if}}".len()..].trim_start_matches('\n');
        } else {
            let value = vars.get(tag).ok_or_else(|| format!("unknown variable {:?}", tag))?;
            out.push_str(value);
        }
    }
    out.push_str(rest);
    Ok(out)
}

const DOCKERFILE: &str = r#"FROM debian:{{debian}}-slim
LABEL maintainer="{{maintainer}}"
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates
{{#if legacy_installer}}
# Legacy installer; prefer the packaged version instead of `curl ... | sh`:
RUN curl -fsSL https://example.com/install.sh | sh
{{/if}}
WORKDIR /app
COPY . /app
CMD ["./{{binary}}", "--port", "{{port}}"]
"#;

const COMPOSE: &str = "services:
  {{service}}:
    build: .
    ports: [\"{{port}}:{{port}}\"]
{{#if monitoring}}
    volumes:
      # read-only socket mount so the dashboard can list containers
      - /var/run/docker.sock:/var/run/docker.sock:ro
{{/if}}
    environment:
      GREETING: \"{{greeting}}\"
";

fn main() -> Result<(), String> {
    let mut vars: HashMap<&str, String> = HashMap::new();
    vars.insert("debian", "bookworm".into());
    vars.insert("maintainer", "Dev Team <dev@example.com>".into());
    vars.insert("binary", "server".into());
    vars.insert("port", 8080.to_string());
    vars.insert("service", "api".into());
    vars.insert("greeting", "Grüß Gott — 'hello'".into());
    vars.insert("legacy_installer", "false".into());
    vars.insert("monitoring", "yes".into());

    let out_dir = std::env::temp_dir().join("rendered-config");
    fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    for (name, tpl) in [("Dockerfile", DOCKERFILE), ("compose.yaml", COMPOSE)] {
        let text = render(tpl, &vars)?;
        let path = out_dir.join(name);
        fs::write(&path, &text).map_err(|e| e.to_string())?;
        let back = fs::read_to_string(&path).map_err(|e| e.to_string())?;
        println!("--- {} ({} bytes) ---\n{}", path.display(), back.len(), back);
    }

    vars.insert("legacy_installer", "true".into());
    let with_legacy = render(DOCKERFILE, &vars)?;
    println!("legacy build adds {} line(s)", with_legacy.lines().count() - render(DOCKERFILE, &{
        let mut v = vars.clone();
        v.insert("legacy_installer", String::new());
        v
    })?.lines().count());

    for bad in ["Hello {{nmae}}!", "{{#if port}}never closed", "oops {{port"] {
        println!("{:?} -> {:?}", bad, render(bad, &vars));
    }
    fs::remove_dir_all(&out_dir).map_err(|e| e.to_string())?;
    Ok(())
}
