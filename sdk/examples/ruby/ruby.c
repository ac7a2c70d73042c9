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
#define _GNU_SOURCE /* memmem */
#include <mcp-sandbox/lex.h>
#include <mcp-sandbox/plugin.h>
#include <string.h>

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

/* The lexer the blocklist sees Ruby through, made of the SDK's pieces
 * (mcp-sandbox/lex.h): comments ("#" to the end of the line; =begin to
 * =end) and the contents of '...' and "..." blanked. Ruby's other
 * literals (%q(), heredocs) are left as code: a rule may then match text
 * in them, never miss code. */
static void lex_ruby(const char *code, size_t len, char *out)
{
	struct sbx_lex lx;

	sbx_lex_init(&lx, code, len, out);
	while (lx.i < lx.n) {
		char c = lx.s[lx.i];
		int line_start = lx.i == 0 || lx.s[lx.i - 1] == '\n';

		if (c == '#') {
			sbx_lex_line_comment(&lx);
		} else if (c == '\'' || c == '"') {
			sbx_lex_quoted(&lx, c,
				       SBX_LEX_ESCAPES | SBX_LEX_MULTILINE);
		} else if (c == '=' && line_start && lx.n - lx.i >= 6 &&
			   memcmp(lx.s + lx.i, "=begin", 6) == 0) {
			const char *end =
				memmem(lx.s + lx.i, lx.n - lx.i, "\n=end", 5);
			size_t to = end ? (size_t)(end - lx.s) + 5 : lx.n;

			sbx_lex_blank(&lx, lx.i, to);
			lx.i = to;
		} else if (sbx_lex_ident_char((unsigned char)c)) {
			sbx_lex_skip_ident(&lx);
		} else {
			lx.i++;
		}
	}
}

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
		  .lex_mask = lex_ruby, .samples = &samples)
