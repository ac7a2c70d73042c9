import ctypes

libc = ctypes.CDLL(None, use_errno=True)
SYS_unshare = 272
CLONE_NEWUSER = 0x10000000
rc = libc.syscall(SYS_unshare, CLONE_NEWUSER)
print("unshare:", rc, ctypes.get_errno())
