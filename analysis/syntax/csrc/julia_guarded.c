// tree-sitter-julia 0.23.1 with its external scanner guarded during error recovery.
//
// While it recovers from an error, tree-sitter calls the external scanner with every external
// token marked valid. tree-sitter-julia's scanner then looks for the rest of a block comment
// and for string and command contents, and each of those scans runs to the next `=#`, quote,
// backquote, `$` or backslash: often the end of the file. A broken file asks for such a
// recovery lex at most tokens, so its parse took time quadratic in its size (36 KB of
// `(x + end ` took 2 s), and so did valid files where a discarded parse alternative fails at
// every line (`y = A' * x`, `(a, b) -> a`). In recovery the guard lets the scanner look only
// for its one-character tokens (`_immediate_paren` and the like); everything else is left to
// the grammar's own lexer, as in any other state.
//
// `tree_sitter/parser.h` is the ABI header tree-sitter-julia 0.23.1 was generated with, copied
// unchanged (tree-sitter, MIT licence): it gives the layout of `TSLanguage` copied below.

#include <stdbool.h>
#include <string.h>

#include "tree_sitter/parser.h"

enum { MAX_EXTERNAL_TOKENS = 64 };

static TSLanguage guarded;
// tree-sitter-julia's own scanner.
static bool (*scan)(void *payload, TSLexer *lexer, const bool *valid_symbols);
// The external tokens the scanner may still look for during recovery.
static bool in_recovery[MAX_EXTERNAL_TOKENS];

static bool guarded_scan(void *payload, TSLexer *lexer, const bool *valid_symbols) {
    unsigned count = guarded.external_token_count;
    bool recovering = count > 0;
    for (unsigned i = 0; i < count; i++) {
        if (!valid_symbols[i]) {
            recovering = false;
            break;
        }
    }
    return scan(payload, lexer, recovering ? in_recovery : valid_symbols);
}

// Fills in the guarded copy of `julia` (tree-sitter-julia's language). Called once, before
// `zy_julia_guarded`.
void zy_julia_guarded_init(const TSLanguage *julia) {
    guarded = *julia;
    scan = julia->external_scanner.scan;
    if (scan == NULL || guarded.external_token_count > MAX_EXTERNAL_TOKENS) {
        return;  // Unexpected: keep the scanner as it is.
    }
    for (unsigned i = 0; i < guarded.external_token_count; i++) {
        const char *name = guarded.symbol_names[guarded.external_scanner.symbol_map[i]];
        in_recovery[i] = strncmp(name, "_immediate_", strlen("_immediate_")) == 0;
    }
    guarded.external_scanner.scan = guarded_scan;
}

// tree-sitter-julia with the guarded scanner.
const TSLanguage *zy_julia_guarded(void) { return &guarded; }
