/*
 * The go and rust plugins' prepare_code: which snippets are wrapped, what
 * stays at the top level, and that every line keeps its number (Go through
 * //line directives, Rust by inserting on existing lines only).
 *
 *   test_wrap_go_rust PLUGIN_DIR      (build/lib/mcp-sandbox/plugins)
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>

#include <mcp-sandbox/plugin.h>

#include "testlib.h"

static void log_cb(const char *plugin, enum sbx_log_level level,
		   const char *fmt, ...)
{
	(void)plugin;
	(void)level;
	(void)fmt;
}

static const struct sbx_host_api host = {
	.struct_size = sizeof(struct sbx_host_api),
	.abi_major = SBX_PLUGIN_ABI_MAJOR,
	.abi_minor = SBX_PLUGIN_ABI_MINOR,
	.host_version = "test",
	.log = log_cb,
	.alloc = malloc,
	.free = free,
};

static const struct sbx_plugin *go, *rust;

static const struct sbx_plugin *load(const char *dir, const char *name)
{
	char path[4096];
	void *h;
	sbx_plugin_entry_fn entry;

	snprintf(path, sizeof(path), "%s/%s.so", dir, name);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		return NULL;
	}
	*(void **)&entry = dlsym(h, SBX_PLUGIN_ENTRY_SYMBOL);
	return entry ? entry(&host) : NULL;
}

/* The rewritten code, or a copy of the input when the plugin keeps it. */
static char *wrap(const struct sbx_plugin *p, const char *code)
{
	char *out = NULL;
	size_t n = 0;

	if (p->prepare_code(&host, code, strlen(code), &out, &n) != 0)
		return NULL;
	if (!out)
		return strdup(code);
	if (strlen(out) != n) {
		fprintf(stderr, "out_len %zu, strlen %zu\n", n, strlen(out));
		free(out);
		return NULL;
	}
	return out;
}

static int expect(const struct sbx_plugin *p, const char *code,
		  const char *want, int line)
{
	char *got = wrap(p, code);
	int ok = got && strcmp(got, want) == 0;

	if (!ok)
		fprintf(stderr,
			"FAIL line %d (%s):\n--- code ---\n%s\n--- want "
			"---\n%s\n"
			"--- got ---\n%s\n",
			line, p->name, code, want, got ? got : "(error)");
	free(got);
	return ok;
}

#define EXPECT(p, code, want) CHECK(expect((p), (code), (want), __LINE__))

static void go_cases(void)
{
	/* A file runs as it is. */
	EXPECT(go, "package main\n\nfunc main() {}\n",
	       "package main\n\nfunc main() {}\n");
	EXPECT(go, "// comment\npackage main\nfunc main() {}",
	       "// comment\npackage main\nfunc main() {}");

	/* Bare statements go into main; the directive keeps line 1. */
	EXPECT(go, "fmt.Println(\"hi\")\n",
	       "package main\nfunc main() {\n//line "
	       "main.go:1:1\nfmt.Println(\"hi\")\n}\n");
	/* No trailing newline: one is added before the closing brace, also
	 * after a line comment. */
	EXPECT(go, "x := 1 // one",
	       "package main\nfunc main() {\n//line main.go:1:1\nx := 1 // "
	       "one\n}\n");

	/* Declarations stay at package level, statements go to main, each
	 * part with its own line. */
	EXPECT(go,
	       "import \"fmt\"\n"
	       "type P struct{ X int }\n"
	       "p := P{1}\n"
	       "fmt.Println(p)\n"
	       "func (p P) Double() int {\n\treturn 2 * p.X\n}\n"
	       "fmt.Println(p.Double())\n",
	       "package main\n"
	       "//line main.go:1:1\nimport \"fmt\"\n"
	       "//line main.go:2:1\ntype P struct{ X int }\n"
	       "//line main.go:5:1\nfunc (p P) Double() int {\n\treturn 2 * "
	       "p.X\n}\n"
	       "func main() {\n"
	       "//line main.go:3:1\np := P{1}\nfmt.Println(p)\n"
	       "//line main.go:8:1\nfmt.Println(p.Double())\n"
	       "}\n");

	/* A var with an initializer: package level before the first
	 * statement, in main after it (so it can use main's variables).
	 * const and var without one: package level anywhere. */
	EXPECT(go,
	       "var total = 0\nconst n = 3\nx := n\nvar y = x * "
	       "2\nfmt.Println(total, y, z, w)\n"
	       "const z = n + 1\nvar w [z]int\nvar (\n\ta int\n\tb = a == "
	       "0\n)\n",
	       "package main\n"
	       "//line main.go:1:1\nvar total = 0\nconst n = 3\n"
	       "//line main.go:6:1\nconst z = n + 1\nvar w [z]int\n"
	       "func main() {\n"
	       "//line main.go:3:1\nx := n\nvar y = x * 2\nfmt.Println(total, "
	       "y, z, w)\n"
	       "//line main.go:8:1\nvar (\n\ta int\n\tb = a == 0\n)\n"
	       "}\n");

	/* Grouped declarations and multi-line expressions are one element:
	 * a line ending in an operator or an opening bracket continues. */
	EXPECT(go,
	       "import (\n\t\"fmt\"\n\t\"os\"\n)\ns := 1 "
	       "+\n\t2\nfmt.Fprintln(os.Stdout,\n\ts)\n",
	       "package main\n"
	       "//line main.go:1:1\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n"
	       "func main() {\n"
	       "//line main.go:5:1\ns := 1 "
	       "+\n\t2\nfmt.Fprintln(os.Stdout,\n\ts)\n"
	       "}\n");

	/* A func literal called at once is a statement; a generic func is a
	 * declaration; if/else spans lines; ';' separates on one line. */
	EXPECT(go,
	       "func() { fmt.Println(1) }()\n"
	       "func Map[T any](v []T) []T { return v }\n"
	       "if true {\n} else {\n}\n"
	       "a := 1; func f() {}; b := a\n",
	       "package main\n"
	       "//line main.go:2:1\nfunc Map[T any](v []T) []T { return v }\n"
	       "//line main.go:6:8\n func f() {};\n"
	       "func main() {\n"
	       "//line main.go:1:1\nfunc() { fmt.Println(1) }()\n"
	       "//line main.go:3:1\nif true {\n} else {\n}\na := 1;\n"
	       "//line main.go:6:21\n b := a\n"
	       "}\n");

	/* Strings, raw strings, runes and comments hide brackets and
	 * keywords; a comment holding a newline ends a line. */
	EXPECT(go,
	       "s := \"{ func x() (\"\nr := `\n}\nfunc y() {`\nc := '{'\n/* { "
	       "*/ d := 2 /*\n*/ e := 3\n",
	       "package main\nfunc main() {\n"
	       "//line main.go:1:1\ns := \"{ func x() (\"\nr := `\n}\nfunc y() "
	       "{`\nc := '{'\n/* { */ d := 2 /*\n*/ e := 3\n"
	       "}\n");

	/* Leading comments travel with the declaration after them. */
	EXPECT(go,
	       "x := 1\n\n// double doubles.\nfunc double(v int) int { return "
	       "2 * v }\nprintln(double(x))\n",
	       "package main\n"
	       "//line main.go:2:1\n\n// double doubles.\nfunc double(v int) "
	       "int { return 2 * v }\n"
	       "func main() {\n"
	       "//line main.go:1:1\nx := 1\n"
	       "//line main.go:5:1\nprintln(double(x))\n"
	       "}\n");

	/* A snippet with its own main gets the package clause only. */
	EXPECT(go, "import \"fmt\"\nfunc main() { fmt.Println(1) }\n",
	       "package main\n//line main.go:1:1\nimport \"fmt\"\nfunc main() "
	       "{ fmt.Println(1) }\n");

	/* What the scanner cannot follow goes whole into main. */
	EXPECT(go, "s := \"unterminated\nfunc f() {}\n",
	       "package main\nfunc main() {\n//line main.go:1:1\ns := "
	       "\"unterminated\nfunc f() {}\n}\n");
	EXPECT(go, "x := 1\n}\nfunc f() {}\n",
	       "package main\nfunc main() {\n//line main.go:1:1\nx := "
	       "1\n}\nfunc f() {}\n}\n");

	/* Imports go first, wherever they were. */
	EXPECT(go, "func f() {}\nimport \"os\"\nos.Exit(f())\n",
	       "package main\n"
	       "//line main.go:2:1\nimport \"os\"\n"
	       "//line main.go:1:1\nfunc f() {}\n"
	       "func main() {\n"
	       "//line main.go:3:1\nos.Exit(f())\n"
	       "}\n");

	/* A label ending its line continues into its statement. */
	EXPECT(go, "i := 0\nloop:\nif i < 3 { i++; goto loop }\n",
	       "package main\nfunc main() {\n//line main.go:1:1\ni := "
	       "0\nloop:\nif i < 3 { i++; goto loop }\n}\n");

	/* Nothing at all still makes a program. */
	EXPECT(go, "", "package main\nfunc main() {\n}\n");
	/* A byte order mark is dropped (it may only start a file). */
	EXPECT(go, "\xEF\xBB\xBFx := 1\n",
	       "package main\nfunc main() {\n//line main.go:1:1\nx := 1\n}\n");
}

static void rust_cases(void)
{
	/* A program runs as it is, wherever main is. */
	EXPECT(rust, "fn main() {\n    println!(\"hi\");\n}\n",
	       "fn main() {\n    println!(\"hi\");\n}\n");
	EXPECT(rust, "use std::fmt;\nstruct P;\npub fn main() {}\n",
	       "use std::fmt;\nstruct P;\npub fn main() {}\n");
	/* Character literals with escapes end where they end: '\\' once
	 * hid the main after it and the program was wrapped into a second
	 * main that never ran. */
	EXPECT(rust,
	       "fn esc(c: char) -> bool { c == '\\\\' || c == '\\'' }\n"
	       "fn main() { let e = '\\u{1F600}'; }\n",
	       "fn esc(c: char) -> bool { c == '\\\\' || c == '\\'' }\n"
	       "fn main() { let e = '\\u{1F600}'; }\n");
	/* ...but a main inside a module or a string is not one. */
	EXPECT(rust, "mod m { fn main() {} }\nlet s = \"fn main\";\n",
	       "mod m { fn main() {} }fn main() {\nlet s = \"fn "
	       "main\";\n\n}\n");

	/* Bare statements: main opens at the start, no line moves. */
	EXPECT(rust, "let x = 5;\nprintln!(\"{}\", x);\n",
	       "fn main() {let x = 5;\nprintln!(\"{}\", x);\n\n}\n");
	EXPECT(rust, "println!(\"no newline\") // c",
	       "fn main() {println!(\"no newline\") // c\n}\n");

	/* Items before the first statement stay at the top level; main opens
	 * right after the last one. Items after it are nested in main. */
	EXPECT(rust,
	       "#![allow(dead_code)]\n"
	       "use std::collections::HashMap;\n"
	       "#[derive(Debug, Clone)]\n"
	       "pub(crate) struct P { x: i32 }\n"
	       "impl P {\n    fn get(&self) -> i32 { self.x }\n}\n"
	       "const N: usize = { 3 };\n"
	       "static mut C: [u8; 2] = [0; 2];\n"
	       "// the program\n"
	       "let p = P { x: 1 };\n"
	       "fn later() {}\n"
	       "println!(\"{:?}\", p);\n",
	       "#![allow(dead_code)]\n"
	       "use std::collections::HashMap;\n"
	       "#[derive(Debug, Clone)]\n"
	       "pub(crate) struct P { x: i32 }\n"
	       "impl P {\n    fn get(&self) -> i32 { self.x }\n}\n"
	       "const N: usize = { 3 };\n"
	       "static mut C: [u8; 2] = [0; 2];\n"
	       "fn main() {// the program\n"
	       "let p = P { x: 1 };\n"
	       "fn later() {}\n"
	       "println!(\"{:?}\", p);\n"
	       "\n}\n");

	/* main opens on a blank line between the items and the first
	 * statement, else on a comment line, so that no code moves; an inner
	 * doc comment stays outside. */
	EXPECT(rust, "use std::io;\n\nlet x = 1;\n",
	       "use std::io;\nfn main() {\nlet x = 1;\n\n}\n");
	EXPECT(rust, "// says hi\nprintln!(\"hi\");\n",
	       "fn main() {// says hi\nprintln!(\"hi\");\n\n}\n");
	EXPECT(rust, "//! a crate\n/* a\n\nblock */\n  \n// x\nlet x = 1;\n",
	       "//! a crate\n/* a\n\nblock */\nfn main() {  \n// x\nlet x = "
	       "1;\n\n}\n");

	/* Tuple and unit structs, enums, traits, type aliases, const fn,
	 * unsafe and extern items, macro_rules!. */
	EXPECT(rust,
	       "struct T(i32);\nstruct U;\nenum E { A, B }\ntrait Tr { fn "
	       "f(&self); }\n"
	       "type R = Result<(), String>;\nconst fn c() -> i32 { 1 "
	       "}\nunsafe fn u() {}\n"
	       "extern \"C\" { fn abs(x: i32) -> i32; }\nmacro_rules! sq { "
	       "($x:expr) => { $x * $x }; }\n"
	       "let v = sq!(3);\n",
	       "struct T(i32);\nstruct U;\nenum E { A, B }\ntrait Tr { fn "
	       "f(&self); }\n"
	       "type R = Result<(), String>;\nconst fn c() -> i32 { 1 "
	       "}\nunsafe fn u() {}\n"
	       "extern \"C\" { fn abs(x: i32) -> i32; }\nmacro_rules! sq { "
	       "($x:expr) => { $x * $x }; }fn main() {\n"
	       "let v = sq!(3);\n\n}\n");

	/* Blocks that are expressions are statements: unsafe { }, async
	 * move { }, a labelled loop, an attribute on a let. */
	EXPECT(rust, "fn f() {}\nunsafe { f() }\n",
	       "fn f() {}fn main() {\nunsafe { f() }\n\n}\n");
	EXPECT(rust, "'outer: loop { break 'outer; }\n",
	       "fn main() {'outer: loop { break 'outer; }\n\n}\n");
	EXPECT(rust, "fn f() {}\n#[allow(unused)]\nlet x = 1;\n",
	       "fn f() {}fn main() {\n#[allow(unused)]\nlet x = 1;\n\n}\n");

	/* Strings, raw strings, chars, lifetimes and nested comments hide
	 * brackets and keywords. */
	EXPECT(rust,
	       "fn f<'a>(s: &'a str) -> &'a str { s }\n"
	       "/* fn main() { /* nested */ } */\n"
	       "const S: &str = r#\"}\"fn main\"#;\n"
	       "const C: char = '}';\nconst B: &[u8] = b\"{\";\n"
	       "let q = '\\'';\n",
	       "fn f<'a>(s: &'a str) -> &'a str { s }\n"
	       "/* fn main() { /* nested */ } */\n"
	       "const S: &str = r#\"}\"fn main\"#;\n"
	       "const C: char = '}';\nconst B: &[u8] = b\"{\";fn main() {\n"
	       "let q = '\\'';\n\n}\n");

	/* Items only: an empty main is added. */
	EXPECT(rust, "fn helper() -> i32 { 1 }\n",
	       "fn helper() -> i32 { 1 }\n\nfn main() {}\n");

	/* What the scanner cannot follow goes whole into main. */
	EXPECT(rust, "let s = \"open;\n", "fn main() {let s = \"open;\n\n}\n");
	EXPECT(rust, "fn f() {\nlet x = 1;\n",
	       "fn main() {fn f() {\nlet x = 1;\n\n}\n");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PLUGIN_DIR\n", argv[0]);
		return 2;
	}
	go = load(argv[1], "go");
	rust = load(argv[1], "rust");
	CHECK(go != NULL && go->prepare_code != NULL);
	CHECK(rust != NULL && rust->prepare_code != NULL);
	if (go && go->prepare_code)
		go_cases();
	if (rust && rust->prepare_code)
		rust_cases();
	if (rust) {
		/* ABI 1.1: the optimize option builds with -O. */
		const struct sbx_option *o = rust->options;
		int found = 0, i;

		for (; o && o->name; o++) {
			if (strcmp(o->name, "optimize") != 0 || !o->build_cmd)
				continue;
			for (i = 0; o->build_cmd[i]; i++)
				found |= strcmp(o->build_cmd[i], "-O") == 0;
		}
		CHECK(found);
	}
	return t_summary("test_wrap_go_rust");
}
