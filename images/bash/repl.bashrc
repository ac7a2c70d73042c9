# repl.bashrc - the rcfile of the bash session interpreter, the long-lived
# shell that keeps a session's variables, functions, aliases, exports and
# current directory between calls (docs/session-interpreters.md, "Bash").
#
# The bash plugin's session_cmd starts it as
#
#   bash -c 'exec bash --noprofile --noediting --rcfile /opt/sbx/repl.bashrc -i 4>&2 2>/dev/null'
#
# -i: only an interactive shell abandons the running command on SIGINT and
#     goes on reading commands (a script would die);
# --noediting: no readline, which would echo every line it reads;
# 2>/dev/null, 4>&2: with no terminal, an interactive bash prints "cannot
#     set terminal process group" and "no job control in this shell" before
#     it reads this file; those go to /dev/null and the real stderr, kept
#     on fd 4, comes back first thing below.
#
# File descriptors: 0 the requests (bash reads its commands there, through
# its own 1 KiB buffer), 1 and 2 the output of every call, 3 the replies.
# User code never sees 0 or 3: each call runs under `eval ... </dev/null
# 3>&-` (or with the call's stdin on 0), and the copies bash keeps while it
# does are close-on-exec. The bash plugin's session_request hook writes the
# text of one call; see plugins/bash/bash.c.
#
# SIGINT (the agent's interrupt, sent to the process group) must not be
# ignored when bash starts, or the code's processes would inherit that.
# Outside the eval of a call it is trapped (the plugin's requests set the
# same trap again): bash reads a request in pieces, and an interrupt that
# cut one in two would make it run the rest of the code as top-level
# commands. The trap notes the interrupt in __sbx_int if a request is
# being read (__sbx_req, set by $PS0 and by the request's first line) or
# waits on fd 0 (the agent wrote one and interrupted it before bash got to
# it); the request then skips its eval and answers 130. Otherwise it is a
# late interrupt for a call already answered, and is ignored. The eval
# runs without the trap, so an interrupt stops the code as ^C does in a
# terminal (bash prints a newline on stderr).
#
# At end of input bash exits with status 0, printing "exit" on stderr (as
# it does for the `exit` builtin).

if { : >&4; } 2>/dev/null; then
	exec 2>&4 4>&-
fi

# No job control (there is no terminal), no history, no history expansion
# ("!" is an ordinary character), no prompts, no mail checks, no idle
# timeout, end of input ends the shell.
set +m +H +o history +o ignoreeof
unset HISTFILE MAIL MAILPATH MAILCHECK PROMPT_COMMAND TMOUT IGNOREEOF
PS1= PS2=
# Expands to nothing; sets __sbx_req once bash has read a command (see the
# SIGINT trap below).
PS0='${BASH:0:(__sbx_req=1)*0}'
shopt -u checkwinsize
# Debian's /etc/bash.bashrc, read before this file, may define it.
unset -f command_not_found_handle

# After a foreground job killed by a signal (yes | head, a segfault, kill)
# an interactive bash restores the terminal's settings on fd 255, a copy of
# its stderr at start-up, and complains "tcsetattr: Inappropriate ioctl for
# device" when that is no terminal. A pty master is one. bash restores its
# own close-on-exec fd 255 after `exec 255<>...`, so close it first; the
# new one is inherited by child processes, which is harmless.
exec 255>&-
{ exec 255<>/dev/ptmx; } 2>/dev/null || exec 255>/dev/null

trap '\builtin test -n "${__sbx_req-}" || \builtin read -t 0 && __sbx_int=1' INT

# SBX_WORKDIR is for tests outside a container.
if [ -d "${SBX_WORKDIR:-/work}" ]; then
	cd -- "${SBX_WORKDIR:-/work}"
fi
unset SBX_WORKDIR
