/*
 * test_testlib.c - the harness itself: t_summary's exit status for a run
 * with no check (1: a test that checked nothing does not pass), with a
 * passing check (0) and with a failing one (1), each in a child process
 * of its own whose counts start at zero, its output read back.
 */
#include "testlib.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

enum { NO_CHECK, ONE_PASS, ONE_FAIL };

/* Runs the harness in a child that makes `what` checks; returns its exit
 * status (-1 if it did not exit) and its output (stdout and stderr) in
 * out. */
static int child_summary(int what, char *out, size_t outsz)
{
	int fds[2], st;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(fds) != 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		t_passed = t_failed = 0;
		if (what == ONE_PASS)
			CHECK(1 + 1 == 2);
		else if (what == ONE_FAIL)
			CHECK(1 + 1 == 3);
		st = t_summary("child");
		fflush(stdout);
		_exit(st);
	}
	close(fds[1]);
	while (got + 1 < outsz &&
	       (n = read(fds[0], out + got, outsz - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(fds[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int main(void)
{
	char out[256];

	CHECK(child_summary(NO_CHECK, out, sizeof(out)) == 1);
	CHECK_STR_CONTAINS(out, "child: 0 passed, 0 failed");
	CHECK_STR_CONTAINS(out, "FAIL child: no check ran");
	CHECK(child_summary(ONE_PASS, out, sizeof(out)) == 0);
	CHECK_STR_CONTAINS(out, "child: 1 passed, 0 failed");
	CHECK(child_summary(ONE_FAIL, out, sizeof(out)) == 1);
	CHECK_STR_CONTAINS(out, "child: 0 passed, 1 failed");
	CHECK_STR_CONTAINS(out, "FAIL ");
	return t_summary("testlib");
}
