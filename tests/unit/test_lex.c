/*
 * test_lex.c - the built-in lexers the code blocklist sees code through
 * (sdk/include/mcp-sandbox/lex.h): comments and string contents are
 * blanked, code and module names are kept, offsets and newlines never
 * move.
 */
#include <stdlib.h>
#include <string.h>

#include <mcp-sandbox/lex.h>
#include "testlib.h"

typedef void (*lexer_fn)(const char *code, size_t len, char *out);

static char *mask(lexer_fn f, const char *code)
{
	size_t n = strlen(code);
	char *out = malloc(n + 1);

	f(code, n, out);
	out[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((code[i] == '\n') != (out[i] == '\n'))
			fprintf(stderr, "newline moved at %zu\n", i);
	return out;
}

/* Every `keep` survives masking and every `hide` is gone. */
static void check(lexer_fn f, const char *code, const char *const *keep,
		  const char *const *hide, int line)
{
	char *m = mask(f, code);

	for (; keep && *keep; keep++)
		if (!strstr(m, *keep)) {
			t_failed++;
			fprintf(stderr,
				"FAIL line %d: '%s' was masked in:\n%s\n", line,
				*keep, m);
		} else {
			t_passed++;
		}
	for (; hide && *hide; hide++)
		if (strstr(m, *hide)) {
			t_failed++;
			fprintf(stderr, "FAIL line %d: '%s' survived in:\n%s\n",
				line, *hide, m);
		} else {
			t_passed++;
		}
	free(m);
}

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})
#define CASE(f, code, keep, hide) check(f, code, keep, hide, __LINE__)

static void python(void)
{
	lexer_fn f = sbx_lex_python;

	CASE(f, "import os\nos.system('rm -rf /')  # os.setuid(0)\n",
	     L("import os", "os.system('", "')"), L("rm -rf", "setuid"));
	CASE(f, "x = \"\"\"doc\nos.fork() 'q' \\\"\"\" \"\"\"\ny = os.fork()\n",
	     L("y = os.fork()"), L("doc", "'q'", "os.fork() '"));
	CASE(f, "s = r'\\'' ; t = os.chroot\n", L("t = os.chroot"), NULL);
	CASE(f, "a = f\"{os.setuid(0)}\" + rb'''x\n''' + b\"eval(\"\n",
	     L("a = f\"", "+ rb'''", "+ b\""), L("setuid", "eval"));
	CASE(f, "s = 'unterminated os.setuid\nos.getpid()\n", L("os.getpid()"),
	     L("setuid"));
	CASE(f, "d = {'#': 1}  # c\nz = d['#']\n", L("d = {'", "z = d['"),
	     L(" c\n"));
}

static void javascript(void)
{
	lexer_fn f = sbx_lex_javascript;

	CASE(f,
	     "import cp from \"child_process\";\n"
	     "const x = require('node:fs'); await import('os');\n"
	     "// process.binding('fs')\n/* process.dlopen */ let s = "
	     "'process.binding(';\n",
	     L("\"child_process\"", "'node:fs'", "'os'", "let s = '"),
	     L("binding", "dlopen"));
	CASE(f, "const t = `a ${ `b ${process.binding('x')} c` } d`;\n",
	     L("process.binding(", "`  ${ `  ${", ")}  ` }  `;"),
	     L(" a ", "'x'"));
	CASE(f,
	     "const r = /process\\.binding\\(['\"]/g; const q = a / b / "
	     "c;\nif (/[/]eval(/.test(s)) f(x) / 2;\n",
	     L("const q = a / b / c;", ".test(s)) f(x) / 2;", "/g;"),
	     L("binding", "eval"));
	CASE(f, "return /x/.test(y) && z", L("return /", ".test(y)"), NULL);
	CASE(f, "#!/usr/bin/env node process.binding\nok()\n", L("ok()"),
	     L("binding"));
	CASE(f, "const s = \"it's // not a comment\"; keep();\n", L("keep();"),
	     L("not a comment"));
	CASE(f, "const o = {a: `${x}`}; process.dlopen(m)\n",
	     L("process.dlopen(m)"), NULL);
}

static void go(void)
{
	lexer_fn f = sbx_lex_go;

	CASE(f,
	     "package main\n\nimport (\n\t\"fmt\"\n\tx \"os/exec\"\n)\n"
	     "import \"syscall\"\n\nfunc main() {\n\t// syscall.Setuid(0)\n"
	     "\ts := `raw\nsyscall.RawSyscall(` + \"syscall.Mount(\" + "
	     "string('\"')\n\tsyscall.Unshare(0)\n}\n",
	     L("\"fmt\"", "\"os/exec\"", "\"syscall\"", "syscall.Unshare(0)",
	       "string('"),
	     L("Setuid", "RawSyscall", "Mount"));
	CASE(f, "var s = \"import \\\"x\\\"\"; f(\"os.Exit\")\n", NULL,
	     L("os.Exit", "import"));
	CASE(f, "/* import \"os\" */ x := \"a\"\n", L("x := \""),
	     L("import", "\"a\""));
}

static void rust(void)
{
	lexer_fn f = sbx_lex_rust;

	CASE(f,
	     "fn f<'a>(x: &'a str) -> &'static str { let c = '\"'; "
	     "libc::setuid(0); \"unsafe { asm!() }\" }\n",
	     L("fn f<'a>(x: &'a str)", "&'static str", "libc::setuid(0);"),
	     L("asm!"));
	CASE(f,
	     "let s = r#\"a \"quoted\" libc::syscall(\"#; let b = "
	     "b'\\''; let e = '\\u{1F600}'; asm!(\"nop\");\n",
	     L("let b = b'", "asm!(\"", "let s = r#\""),
	     L("libc::syscall", "1F600", "nop"));
	CASE(f,
	     "/* outer /* inner */ libc::unshare(0) */ keep();\n"
	     "let r#type = 1; let raw = br\"x\\\"; ok(); let u = 'é';\n",
	     L("keep();", "let r#type = 1;", "ok();"), L("unshare", "x\\"));
	CASE(f,
	     "let a = '\\\\'; libc::ptrace(x); let q = '\\''; b'\\\\'; "
	     "libc::setns(y);\n",
	     L("libc::ptrace(x);", "libc::setns(y);"), NULL);
	CASE(f,
	     "let v = ['\\n', '\"']; unsafe { libc::ptrace(0,0,0,0) }; let s = "
	     "\"\";\n",
	     L("unsafe { libc::ptrace(0,0,0,0) }; let s = \""), NULL);
	CASE(f, "// libc::ptrace\n/// doc: std::arch::asm!\nfn main(){}\n",
	     L("fn main(){}"), L("ptrace", "asm"));
}

static void bash(void)
{
	lexer_fn f = sbx_lex_bash;

	CASE(f,
	     "echo 'rm -rf /' \"mkfs $(whoami) `id`\" # :(){ :|:& };:\n"
	     "n=$# len=${#arr[@]} base=${p##*/} x=a#b\n",
	     L("$(whoami)", "`id`",
	       "n=$# len=${#arr[@]} base=${p##*/} "
	       "x=a#b"),
	     L("rm -rf", "mkfs", ":|:"));
	CASE(f, "cat <<EOF > /work/a\nunshare -r\n  EOF\nEOF\nmount x\n",
	     L("cat <<EOF", "mount x", "\nEOF\n"), L("unshare"));
	CASE(f,
	     "cat <<-'END' <<\"TWO\"\n\tnsenter\n\tEND\nchroot\nTWO\n"
	     "insmod m\n",
	     L("insmod m"), L("nsenter", "chroot"));
	CASE(f, "echo $((1 << 2)) ; (( x <<= 1 )) ; unshare -U\n",
	     L("unshare -U", "$((1 << 2))"), NULL);
	CASE(f, "grep x <<< 'unshare -r'\nok\n", L("grep x <<< '", "ok"),
	     L("unshare"));
	CASE(f, "echo $'a \\' b' unshare\n", L(" unshare"), L(" b"));
	CASE(f, "x=\"$(echo \"inner $(nsenter -t 1)\")\" # c\n",
	     L("nsenter -t 1"), L("inner", " c"));
	CASE(f, "case $x in\n  a) mount ;;\n  *) echo '#' ;;\nesac\n",
	     L("a) mount ;;", "esac"), NULL);
}

/* Every lexer on hostile shapes: unterminated everything, deep nesting,
 * a lone quote at the end, NUL bytes; none may read or write out of
 * bounds (ASan runs this) or move a newline. */
static void hostile(void)
{
	static const lexer_fn all[] = {sbx_lex_python, sbx_lex_javascript,
				       sbx_lex_go, sbx_lex_rust, sbx_lex_bash};
	static const char *const shapes[] = {
		"'",	"\"",	  "`",	 "/*",	       "r#\"",	"'\\",
		"\\",	"<<",	  "<<-", "$(",	       "${",	"$((",
		"\"$(", "`${`${", "/[",	 "x = /a\\",   "'''",	"b'",
		"r",	"br#",	  "#",	 "cat <<E\nx", "'\\u{",
	};
	char deep[4096];

	for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++) {
		for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
			free(mask(all[k], shapes[s]));
		for (size_t i = 0; i + 3 < sizeof(deep); i += 3)
			memcpy(deep + i, k == 4 ? "$(\"" : "`${", 3);
		deep[sizeof(deep) - 1] = '\0';
		free(mask(all[k], deep));
		t_passed++;
	}
	{
		char nul[] = "a\0'b\0\"c";
		char out[sizeof(nul)];

		for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++)
			all[k](nul, sizeof(nul) - 1, out);
		CHECK(out[0] == 'a');
	}
}

int main(void)
{
	python();
	javascript();
	go();
	rust();
	bash();
	hostile();
	return t_summary("lex");
}
