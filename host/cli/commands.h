/*
 * commands.h - the subcommands' handlers, one a row of cli.c's table,
 * each in its cli/cmd_*.c. A handler gets the app with sandbox.ini and
 * the plugins loaded (a->loaded nonzero: refused, the reason logged) and
 * the arguments after its name (the global options taken out); it
 * returns the process's exit status.
 */
#ifndef SBX_CLI_COMMANDS_H
#define SBX_CLI_COMMANDS_H

struct app;
struct cJSON;
struct docker;

int cmd_serve(struct app *a, int argc, char **argv);	    /* cmd_serve.c */
int cmd_run(struct app *a, int argc, char **argv);	    /* cmd_run.c */
int cmd_blocklist(struct app *a, int argc, char **argv);    /* cmd_run.c */
int cmd_install(struct app *a, int argc, char **argv);	    /* cmd_packages.c */
int cmd_cache(struct app *a, int argc, char **argv);	    /* cmd_packages.c */
int cmd_audit(struct app *a, int argc, char **argv);	    /* cmd_audit.c */
int cmd_token(struct app *a, int argc, char **argv);	    /* cmd_token.c */
int cmd_doctor(struct app *a, int argc, char **argv);	    /* cmd_check.c */
int cmd_check_config(struct app *a, int argc, char **argv); /* cmd_check.c */
int cmd_check_plugin(struct app *a, int argc, char **argv); /* cmd_check.c */

/* serve: the doctor's checks on an engine that answers for the first
 * time, logged (what fails or warns at warning level, the rest at info);
 * they end on the loop. desc: the engine's description as it came up
 * (engine_description), so that it is not asked again. */
void cmd_doctor_log(struct app *a, struct docker *d, const struct cJSON *desc);

#endif
