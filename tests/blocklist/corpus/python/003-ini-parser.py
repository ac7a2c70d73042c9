import configparser
from pathlib import Path

INI_TEXT = r"""
[DEFAULT]
base_dir = /work/data
retries = 3

[database]
host = localhost
port = 5432
name = inventory
timeout_seconds = 2.5

[paths]
uploads = %(base_dir)s/uploads
cache = %(base_dir)s/cache
windows_style = C:\Users\demo\AppData

[jobs]
nightly_backup = yes
cleanup_command = find %(base_dir)s/cache -mtime +7 -delete
; the following line is commented out on purpose
; dangerous = rm -rf %(base_dir)s
"""


def describe(cfg):
    for section in cfg.sections():
        print(f"[{section}]")
        for key, value in cfg.items(section):
            print(f"  {key:<16} -> {value}")


def main():
    path = Path("settings.ini")
    path.write_text(INI_TEXT)

    cfg = configparser.ConfigParser()
    cfg.read(path)
    describe(cfg)

    port = cfg.getint("database", "port")
    timeout = cfg.getfloat("database", "timeout_seconds")
    backup = cfg.getboolean("jobs", "nightly_backup")
    retries = cfg["database"].getint("retries")
    print(f"\nport={port} timeout={timeout} backup={backup} retries={retries}")

    assert cfg["paths"]["uploads"] == "/work/data/uploads"
    assert not cfg.has_option("jobs", "dangerous")

    cfg["database"]["port"] = "6543"
    cfg.add_section("metrics")
    cfg["metrics"]["enabled"] = "true"
    with open("settings.updated.ini", "w") as fh:
        cfg.write(fh)

    reread = configparser.ConfigParser()
    reread.read("settings.updated.ini")
    print("updated port:", reread["database"]["port"])
    print("sections:", reread.sections())

    try:
        reread.getint("database", "name")
    except ValueError as exc:
        print("expected conversion error:", exc)


if __name__ == "__main__":
    main()
