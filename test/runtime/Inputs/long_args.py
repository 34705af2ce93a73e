"""Runs a command with long or unprintable arguments, which lit's shell cannot
write: in each argument `LONG(N)` becomes N letters `a` and `\\xNN` the byte
NN. The command replaces this process, so its exit status is the test's."""
import os
import re
import sys


def expand(arg):
    arg = re.sub(r"LONG\((\d+)\)", lambda m: "a" * int(m.group(1)), arg)
    data = os.fsencode(arg)
    return re.sub(rb"\\x([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]), data)


args = [expand(a) for a in sys.argv[1:]]
os.execvp(args[0], args)
