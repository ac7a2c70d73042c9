/*
 * python_samples.h - the sample programs of the python and python-ml
 * plugins, which `mcp-sandbox check-plugin --run` runs (ABI 1.7;
 * session_fds 1.10).
 */
#ifndef SBX_PYTHON_SAMPLES_H
#define SBX_PYTHON_SAMPLES_H

#include <mcp-sandbox/plugin.h>

static const struct sbx_samples python_samples = {
	.hello = "print('hello')",
	.echo = "import sys\nsys.stdout.write(sys.stdin.read())",
	.fail = "import sys\nprint('oops', file=sys.stderr)\nsys.exit(3)",
	.spin = "while True:\n    pass",
	.session_set = "x = 41",
	.session_get = "print(x + 1)",
	.session_fds = "import os\n_ = os.system('ls -l /proc/self/fd')",
};

#endif
