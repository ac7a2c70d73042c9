# sitecustomize for the sandbox's python image (installed over Debian's).
#
# matplotlib wants a writable cache directory and builds its font list there
# on first use, which takes seconds and prints a warning. The image ships the
# font list built at image build time in /opt/sbx/matplotlib; the first
# `import matplotlib` of a run copies it into $MPLCONFIGDIR (default
# /tmp/matplotlib, wiped after every call). Nothing happens, and nothing is
# imported, for programs that do not use matplotlib.
import os
import sys

_SRC = "/opt/sbx/matplotlib"


class _MatplotlibCache:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != "matplotlib":
            return None
        sys.meta_path.remove(_MatplotlibCache)
        dst = os.environ.setdefault("MPLCONFIGDIR", "/tmp/matplotlib")
        try:
            os.makedirs(dst, exist_ok=True)
            for f in os.listdir(_SRC):
                target_path = os.path.join(dst, f)
                if not os.path.exists(target_path):
                    with open(os.path.join(_SRC, f), "rb") as i, open(target_path, "wb") as o:
                        o.write(i.read())
        except OSError:
            pass
        return None


if os.path.isdir(_SRC):
    sys.meta_path.insert(0, _MatplotlibCache)
