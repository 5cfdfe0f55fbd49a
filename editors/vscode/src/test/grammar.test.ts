import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

interface Rule {
    name: string;
    match: string;
}

const grammar = JSON.parse(readFileSync(join(__dirname, "../../syntaxes/zy-ir.tmLanguage.json"), "utf8")) as {
    patterns: Rule[];
};

/** Tokenise one line as TextMate does with flat `match` rules: the earliest match wins, then rule order. */
function tokens(line: string): string[] {
    const out: string[] = [];
    let pos = 0;
    while (pos < line.length) {
        let best: { index: number; text: string; name: string } | undefined;
        for (const rule of grammar.patterns) {
            const re = new RegExp(rule.match, "gu");
            re.lastIndex = pos;
            const m = re.exec(line);
            if (m && m[0].length > 0 && (!best || m.index < best.index)) {
                best = { index: m.index, text: m[0], name: rule.name.split(".")[0] };
            }
        }
        if (!best) {
            break;
        }
        out.push(`${best.name}:${best.text}`);
        pos = best.index + best.text.length;
    }
    return out;
}

test("a φ node: values, blocks, the type and the trailing comment", () => {
    assert.deepEqual(tokens("  %4 = φ(#1 → %2, #3 → %8) :: Int64     # n"), [
        "variable:%4",
        "keyword:φ",
        "entity:#1",
        "variable:%2",
        "entity:#3",
        "variable:%8",
        "keyword:::",
        "entity:Int64",
        "comment:# n",
    ]);
});

test("a signature, a branch and a call with a literal", () => {
    assert.deepEqual(tokens("pow(%1::Float64, %2::Int64) :: Float64   # x, n"), [
        "entity:pow",
        "variable:%1",
        "keyword:::",
        "entity:Float64",
        "variable:%2",
        "keyword:::",
        "entity:Int64",
        "keyword:::",
        "entity:Float64",
        "comment:# x, n",
    ]);
    assert.deepEqual(tokens("  br %6 ? #3 : #4"), ["keyword:br", "variable:%6", "entity:#3", "entity:#4"]);
    assert.deepEqual(tokens("  %3 = float(1) :: Float64"), [
        "variable:%3",
        "entity:float",
        "constant:1",
        "keyword:::",
        "entity:Float64",
    ]);
    assert.deepEqual(tokens("#2:"), ["entity:#2"]);
});
