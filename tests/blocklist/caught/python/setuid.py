import os

# Try to become root before reading the host's files.
os.setuid(0)
print(open("/etc/shadow").read())
