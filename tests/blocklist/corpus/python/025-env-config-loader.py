import os
from dataclasses import MISSING, dataclass, field, fields
from typing import get_type_hints


class ConfigError(Exception):
    pass


@dataclass
class AppConfig:
    database_url: str
    port: int = 8000
    debug: bool = False
    workers: int = 2
    allowed_hosts: list = field(default_factory=lambda: ["localhost"])
    timeout: float = 30.0


def _convert(name, raw, typ):
    if typ is bool:
        if raw.lower() in ("1", "true", "yes", "on"):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"{name}: cannot read {raw!r} as a boolean")
    if typ is list:
        return [part.strip() for part in raw.split(",") if part.strip()]
    try:
        return typ(raw)
    except ValueError:
        raise ConfigError(f"{name}: cannot read {raw!r} as {typ.__name__}") from None


def load(prefix="MYAPP_", environ=None):
    environ = os.environ if environ is None else environ
    hints = get_type_hints(AppConfig)
    kwargs, missing = {}, []
    for f in fields(AppConfig):
        key = prefix + f.name.upper()
        if key in environ:
            kwargs[f.name] = _convert(key, environ[key], hints[f.name])
        elif f.default is MISSING and f.default_factory is MISSING:
            missing.append(key)
    if missing:
        raise ConfigError("missing required variables: " + ", ".join(missing))
    return AppConfig(**kwargs)


def main():
    os.environ["MYAPP_DATABASE_URL"] = "postgresql://app@localhost:5432/app"
    os.environ["MYAPP_PORT"] = "9000"
    os.environ["MYAPP_DEBUG"] = "yes"
    os.environ["MYAPP_ALLOWED_HOSTS"] = "localhost, example.com ,"
    cfg = load()
    print(cfg)
    assert cfg.port == 9000 and cfg.debug and cfg.allowed_hosts == ["localhost", "example.com"]

    for env in ({}, {"MYAPP_DATABASE_URL": "x", "MYAPP_PORT": "eighty"},
                {"MYAPP_DATABASE_URL": "x", "MYAPP_DEBUG": "maybe"}):
        try:
            load(environ=env)
        except ConfigError as exc:
            print("config error:", exc)

    print("\nenvironment summary:")
    print("  HOME =", os.environ.get("HOME", "<unset>"))
    print("  PATH has", len(os.environ.get("PATH", "").split(os.pathsep)), "entries")
    print("  vars with MYAPP_ prefix:", sorted(k for k in os.environ if k.startswith("MYAPP_")))
    print("  expandvars:", os.path.expandvars("port is $MYAPP_PORT, home is ${HOME}"))


if __name__ == "__main__":
    main()
