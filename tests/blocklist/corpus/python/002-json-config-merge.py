import json
from copy import deepcopy

DEFAULTS = {
    "server": {"host": "127.0.0.1", "port": 8080, "workers": 2},
    "logging": {"level": "INFO", "handlers": ["console"]},
    "features": {"beta_ui": False, "rate_limit": {"enabled": True, "per_minute": 60}},
}

USER_JSON = """
{
  "server": {"port": 9090},
  "logging": {"level": "DEBUG", "handlers": ["console", "file"]},
  "features": {"rate_limit": {"per_minute": 120}, "dark_mode": true}
}
"""

ENV_OVERRIDES = ["server.workers=4", "features.beta_ui=true", "logging.file=/work/app.log"]


def deep_merge(base, override):
    result = deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = deep_merge(result[key], value)
        else:
            result[key] = deepcopy(value)
    return result


def parse_scalar(text):
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def apply_dotted(config, assignment):
    path, _, raw = assignment.partition("=")
    keys = path.split(".")
    node = config
    for key in keys[:-1]:
        node = node.setdefault(key, {})
    node[keys[-1]] = parse_scalar(raw)


def flatten(config, prefix=""):
    for key, value in config.items():
        full = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            yield from flatten(value, full)
        else:
            yield full, value


def main():
    merged = deep_merge(DEFAULTS, json.loads(USER_JSON))
    for assignment in ENV_OVERRIDES:
        apply_dotted(merged, assignment)

    for key, value in sorted(flatten(merged)):
        print(f"{key:32} = {json.dumps(value)}")

    assert merged["server"]["host"] == "127.0.0.1"
    assert merged["server"]["port"] == 9090
    assert merged["features"]["rate_limit"] == {"enabled": True, "per_minute": 120}
    assert DEFAULTS["server"]["port"] == 8080, "defaults must not be mutated"

    with open("merged_config.json", "w") as fh:
        json.dump(merged, fh, indent=2, sort_keys=True)
    print("saved merged_config.json")


if __name__ == "__main__":
    main()
