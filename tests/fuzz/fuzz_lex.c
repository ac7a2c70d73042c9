/*
 * fuzz_lex.c - libFuzzer harness for the built-in plugins' lexers
 * (sdk/include/mcp-sandbox/lex.h), which read untrusted code in the
 * server's process: every lexer on every input. Nothing may crash or
 * read or write out of bounds (ASan, UBSan), and the masked copy must keep
 * its promise: the same length, every newline where it was, and every
 * byte either the input's own or a space.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mcp-sandbox/lex.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static void (*const lexers[])(const char *, size_t, char *) = {
		sbx_lex_python, sbx_lex_javascript, sbx_lex_go,
		sbx_lex_rust,	sbx_lex_bash,
	};
	const char *code = (const char *)data;
	char *out = malloc(size ? size : 1);

	if (!out)
		return 0;
	for (size_t k = 0; k < sizeof(lexers) / sizeof(lexers[0]); k++) {
		lexers[k](code, size, out);
		for (size_t i = 0; i < size; i++)
			if ((code[i] == '\n') != (out[i] == '\n') ||
			    (out[i] != code[i] && out[i] != ' '))
				abort();
	}
	free(out);
	return 0;
}
