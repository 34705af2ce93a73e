"""build_cache.py: helpers for the build cache tests (build-cache-*.test).

  together N PREFIX -- COMMAND...
      Starts N copies of COMMAND at once, each with stdout in PREFIX.I.out
      and stderr in PREFIX.I.err; waits for all; exits 1 if any failed.
  hold-lock DIR SAVED SECONDS -- COMMAND...
      Plays another linnet compiling the one entry in DIR: moves DIR/KEY.lnpkg
      to SAVED, takes the flock on DIR/KEY.lock, starts COMMAND, waits until
      COMMAND blocks on the lock (at most SECONDS), puts the entry back, removes the lock file and unlocks (as
      linnet does); exits with COMMAND's status.
  replace DIR KIND
      Puts KIND where the one entry DIR/KEY.lnpkg is: fifo, dir, socket,
      empty, truncated (its first 100 bytes), link-to:TARGET (a symbolic link).
  lock-path DIR KIND
      Puts KIND (dir or file) at DIR/KEY.lock, KEY being the one entry's.
  check DIR
      Fails unless DIR holds exactly one entry, a regular file, and no lock
      or temporary file.
"""
import fcntl
import glob
import os
import shutil
import socket
import stat
import subprocess
import sys
import time


def entry(directory):
    found = glob.glob(os.path.join(directory, "*.lnpkg"))
    if len(found) != 1:
        sys.exit(f"build_cache.py: {directory} holds {len(found)} entries, not 1: {found}")
    return found[0]


def remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.remove(path)


def command_after_dashes(args):
    if "--" not in args:
        sys.exit("build_cache.py: no -- before the command")
    return args[args.index("--") + 1:]


def together(args):
    count, prefix = int(args[0]), args[1]
    command = command_after_dashes(args)
    children = []
    for i in range(count):
        out = open(f"{prefix}.{i}.out", "wb")
        err = open(f"{prefix}.{i}.err", "wb")
        children.append(subprocess.Popen(command, stdout=out, stderr=err))
    failed = [i for i, child in enumerate(children) if child.wait() != 0]
    if failed:
        sys.exit(f"build_cache.py: runs {failed} failed")


def blocked_on(inode):
    try:
        with open("/proc/locks") as f:
            return any("->" in line and f":{inode} " in line for line in f)
    except OSError:
        return False


def hold_lock(args):
    directory, saved, seconds = args[0], args[1], float(args[2])
    command = command_after_dashes(args)
    path = entry(directory)
    os.rename(path, saved)
    lock_path = path[: -len(".lnpkg")] + ".lock"
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    child = subprocess.Popen(command)
    # Held until COMMAND is blocked on the lock (a `->` line for the lock
    # file's inode in /proc/locks), at most SECONDS: a fixed sleep raced a
    # slow start on a loaded machine.
    inode = os.fstat(fd).st_ino
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and child.poll() is None and not blocked_on(inode):
        time.sleep(0.05)
    os.rename(saved, path)
    os.remove(lock_path)
    os.close(fd)
    sys.exit(child.wait())


def replace(args):
    directory, kind = args
    path = entry(directory)
    if kind == "truncated":
        with open(path, "r+b") as f:
            f.truncate(100)
        return
    if kind == "empty":
        open(path, "wb").close()
        return
    remove(path)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dir":
        os.mkdir(path)
        open(os.path.join(path, "inside"), "w").close()
    elif kind == "socket":
        # Bound by its name in its directory: a socket's path is limited to
        # 108 bytes, which lit's temporary directories pass.
        os.chdir(os.path.dirname(path))
        s = socket.socket(socket.AF_UNIX)
        s.bind(os.path.basename(path))
        s.close()
    elif kind.startswith("link-to:"):
        os.symlink(kind[len("link-to:"):], path)
    elif kind.startswith("copy-of:"):
        shutil.copyfile(kind[len("copy-of:"):], path)
    else:
        sys.exit(f"build_cache.py: unknown kind {kind}")


def lock_path(args):
    directory, kind = args
    path = entry(directory)[: -len(".lnpkg")] + ".lock"
    if kind == "dir":
        os.mkdir(path)
    elif kind == "file":
        open(path, "w").close()
    else:
        sys.exit(f"build_cache.py: unknown kind {kind}")


def check(args):
    directory = args[0]
    path = entry(directory)
    mode = os.lstat(path).st_mode
    if not stat.S_ISREG(mode):
        sys.exit(f"build_cache.py: {path} is not a regular file (mode {oct(mode)})")
    others = sorted(set(os.listdir(directory)) - {os.path.basename(path)})
    if others:
        sys.exit(f"build_cache.py: {directory} holds more than the entry: {others}")


commands = {"together": together, "hold-lock": hold_lock, "replace": replace, "lock-path": lock_path,
            "check": check}
commands[sys.argv[1]](sys.argv[2:])
