import { test } from "node:test";
import assert from "node:assert/strict";
import { Edit, shiftPosition } from "../position";

const at = (line: number, character: number) => ({ line, character });
const edit = (sl: number, sc: number, el: number, ec: number, text: string): Edit => ({
    range: { start: at(sl, sc), end: at(el, ec) },
    text,
});

test("edits after the position leave it", () => {
    assert.deepEqual(shiftPosition(at(4, 9), edit(4, 10, 4, 12, "xyz")), at(4, 9));
    assert.deepEqual(shiftPosition(at(4, 9), edit(7, 0, 9, 0, "")), at(4, 9));
});

test("lines inserted or deleted above move it down or up", () => {
    assert.deepEqual(shiftPosition(at(4, 9), edit(1, 0, 1, 0, "a\nb\n")), at(6, 9));
    assert.deepEqual(shiftPosition(at(4, 9), edit(1, 0, 3, 0, "")), at(2, 9));
});

test("an edit on the same line before it moves it sideways", () => {
    // "function pow" -> "function mypow": 2 characters typed at column 9.
    assert.deepEqual(shiftPosition(at(4, 9), edit(4, 0, 4, 0, "  ")), at(4, 11));
    assert.deepEqual(shiftPosition(at(4, 9), edit(4, 2, 4, 5, "")), at(4, 6));
    // A newline typed before it on its line: it lands on the new line.
    assert.deepEqual(shiftPosition(at(4, 9), edit(4, 3, 4, 3, "\n  ")), at(5, 8));
    // Lines joined: the rest of line 4 follows line 3's first 5 characters.
    assert.deepEqual(shiftPosition(at(4, 9), edit(3, 5, 4, 2, "")), at(3, 12));
});

test("an edit covering it moves it to the edit's start", () => {
    assert.deepEqual(shiftPosition(at(4, 9), edit(3, 2, 5, 0, "x")), at(3, 2));
});
