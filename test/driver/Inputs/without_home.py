"""without_home.py USER COMMAND...: runs COMMAND with HOME unset and
XDG_CACHE_HOME empty, as a user USER: `nobody` (whose home directory in the
password database, /nonexistent, cannot be created) or `unknown` (a uid with
no entry in the password database). Root switches uid directly; anyone else
goes through a user namespace (`unshare --user --map-user`)."""
import os
import pwd
import sys


def uid_for(user):
    if user != "unknown":
        return pwd.getpwnam(user).pw_uid
    uid = 1234567
    while True:
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
        uid += 1


uid = uid_for(sys.argv[1])
command = sys.argv[2:]
env = dict(os.environ)
env.pop("HOME", None)
env["XDG_CACHE_HOME"] = ""
# lit's temporary directory belongs to the user running the tests.
env["TMPDIR"] = "/tmp"
if os.geteuid() == 0:
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
else:
    command = ["unshare", "--user", f"--map-user={uid}", "--"] + command
os.execvpe(command[0], command, env)
