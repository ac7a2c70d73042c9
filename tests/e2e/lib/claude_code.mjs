// Claude Code's rules for a tool result, as the tests apply them: what it
// passes to the model, and the size it takes (MAX_MCP_OUTPUT_TOKENS).
import assert from 'node:assert/strict';

export const BUDGET = 10_000; // tokens, the default of [limits] result_max_tokens
export const CLAUDE_CODE_LIMIT = 25_000; // MAX_MCP_OUTPUT_TOKENS' default
export const IMAGE_TOKENS = 1_600; // what Claude Code counts for an image block

/**
 * What Claude Code passes to the model from a CallToolResult: the JSON of
 * structuredContent when there is one (every other block dropped, images
 * included), else the content blocks.
 */
export function claudeCodeSees(result) {
  if (result.structuredContent !== undefined) return [{ type: 'text', text: JSON.stringify(result.structuredContent) }];
  return result.content;
}

/**
 * Claude Code's rule for a tool result, measured three ways: with the
 * bound docs/files.md documents (2 bytes of UTF-8 text a token), with a
 * stricter one (every character a token), and with Claude Code's own
 * estimate (4 characters a token, 1600 an image), under half of which it
 * takes a result without counting. It refuses a result over the limit;
 * the text must also stay under the budget we promise.
 */
export function assertClaudeCodeTakes(result, { budget = BUDGET } = {}) {
  const texts = result.content.filter((b) => b.type === 'text').map((b) => b.text);
  const images = result.content.filter((b) => b.type === 'image').length;
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0);
  const chars = texts.reduce((n, t) => n + t.length, 0);
  assert.ok(bytes / 2 <= budget, `${bytes / 2} tokens at 2 bytes a token, over the budget of ${budget}`);
  assert.ok(bytes / 2 + images * IMAGE_TOKENS <= CLAUDE_CODE_LIMIT, `Claude Code would refuse ${bytes / 2} tokens`);
  assert.ok(chars + images * IMAGE_TOKENS <= CLAUDE_CODE_LIMIT, `${chars} characters, refused even at a token each`);
  assert.ok(chars / 4 + images * IMAGE_TOKENS <= (CLAUDE_CODE_LIMIT * 0.5), `Claude Code's estimate (${chars / 4}) would have it counted`);
}
