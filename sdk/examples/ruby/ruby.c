/*
 * ruby.c - a language plugin built outside the mcp-sandbox tree, against
 * the installed SDK only (sdk/README.md follows it step by step):
 *
 *   cmake -S . -B build -DCMAKE_PREFIX_PATH=<the SDK's prefix>
 *   cmake --build build                     # build/ruby.so
 *   <prefix>/share/mcp-sandbox/scripts/build-images.sh images/ruby
 *                                           # mcp-sandbox/ruby:latest
 *   mcp-sandbox check-plugin build/ruby.so --run
 *
 * Ruby runs each call's code as a program (main.rb); a session keeps its
 * files between calls, not its variables (no session interpreter).
 */
#include <mcp-sandbox/plugin.h>

static const char *const aliases[] = {"rb", NULL};
static const char *const run_cmd[] = {"ruby", "{file}", NULL};
/* Gems come from nowhere (no network); keep Ruby from looking. */
static const char *const env[] = {"RUBYOPT=--disable-gems", NULL};

/* Constructs ordinary Ruby programs do not use (docs/security.md, "The
 * code blocklist"): the container stops them anyway. */
static const struct sbx_block_rule blocklist[] = {
	{"\\bsyscall[[:space:]]*\\(", "raw system calls are not available"},
	{"Process\\.(setuid|setgid|setresuid|setresgid)",
	 "changing the user id is not available"},
	{NULL, NULL},
};

/* What `mcp-sandbox check-plugin ruby.so --run` runs. */
static const struct sbx_samples samples = {
	.hello = "puts 'hello'",
	.echo = "print $stdin.read",
	.fail = "warn 'oops'\nexit 3",
	.spin = "loop {}",
};

SBX_PLUGIN_DEFINE(.name = "ruby", .aliases = aliases, .version = "0.1.0",
		  .description = "Ruby 3.1 (Debian's), built outside the "
				 "tree with the installed SDK",
		  .image = "mcp-sandbox/ruby:latest", .file_name = "main.rb",
		  .run_cmd = run_cmd, .env = env, .blocklist = blocklist,
		  .samples = &samples)
