import ctypes
import numpy as np

libc = ctypes.CDLL("libc.so.6", use_errno=True)
PTRACE_ATTACH = 16
print(np.arange(3), libc.ptrace(PTRACE_ATTACH, 1, None, None))
