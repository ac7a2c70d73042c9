/*
 * cmd_token.c - `mcp-sandbox token NAME [--file FILE]`: a new tenant for
 * serve --http (core/tenants/tenants.h, docs/http.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "commands.h"
#include "core/tenants/tenants.h"

/* mcp-sandbox token NAME [--file FILE]: a new tenant, its line (the
 * token's SHA-256) appended to the tokens file ([http] tokens_file, made
 * 0600 if missing), the token itself printed once on stdout. */
int cmd_token(struct app *a, int argc, char **argv)
{
	const char *name = NULL, *file = a->cfg.http_tokens_file;
	char token[128], line[256], have[1024];
	size_t n;
	FILE *f;
	int i, fd, ok;

	if (a->loaded)
		return 2;
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--file") == 0 && i + 1 < argc)
			file = argv[++i];
		else if (!name)
			name = argv[i];
		else {
			cli_usage(stderr);
			return 2;
		}
	}
	if (!name || !tenant_valid_name(name)) {
		fprintf(stderr, "token: a tenant's name is 1 to 32 characters "
				"of a-z, 0-9, '_' and '-'\n");
		return 2;
	}
	if (!file) {
		fprintf(stderr, "token: no tokens file: give --file FILE or "
				"set [http] tokens_file\n");
		return 2;
	}
	n = strlen(name);
	if ((f = fopen(file, "re"))) {
		while (fgets(have, sizeof(have), f))
			if (strncmp(have, name, n) == 0 &&
			    (have[n] == ' ' || have[n] == '\t')) {
				fclose(f);
				fprintf(stderr,
					"token: %s already names tenant %s: "
					"remove its line to give it a new "
					"token\n",
					file, name);
				return 1;
			}
		fclose(f);
	}
	if (tenant_new_token(name, token, sizeof(token), line, sizeof(line))) {
		fprintf(stderr, "token: no randomness to be had\n");
		return 1;
	}
	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	ok = fd >= 0 && write(fd, line, strlen(line)) == (ssize_t)strlen(line);
	if (fd >= 0 && close(fd) != 0)
		ok = 0;
	if (!ok) {
		fprintf(stderr, "token: %s: %s\n", file, strerror(errno));
		return 1;
	}
	printf("%s\n", token);
	fprintf(stderr,
		"tenant %s added to %s; its token (above) is shown only now. "
		"A running server reads the file again on SIGHUP.\n",
		name, file);
	return 0;
}
