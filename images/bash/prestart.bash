# BASH_ENV of a pre-started bash (docs/prestart.md). The agent starts the
# next one-off call's bash before the call arrives, with that call's argv
# and environment plus BASH_ENV naming this file, which bash reads before
# it opens the script: here it waits. Closing fd 5 tells the agent it
# waits; fd 3 then brings "sbx1", the stdin mode and the added arguments,
# and bash goes on to run /work/main.sh exactly as a bash started then
# would. Nothing of this file stays behind: no variable, function or
# descriptor, and $_ is again what bash set it to (its argv[0]): the
# function's last argument, which it is once the function has removed
# itself and the variables.
__sbx_a0=$_
unset BASH_ENV
exec 5>&-
mapfile -d '' -t -u 3 __sbx_go
exec 3<&-
if [[ ${__sbx_go[0]-} != sbx1 ]]; then
	exit 127 # the agent stopped it without a program
elif [[ ${__sbx_go[1]-} == stdin ]]; then
	exec 0<&4 4<&-
else
	exec 4<&-
fi
set -- "${__sbx_go[@]:2}"
__sbx_end() {
	unset -v __sbx_go __sbx_a0
	unset -f __sbx_end
}
__sbx_end "$__sbx_a0"
