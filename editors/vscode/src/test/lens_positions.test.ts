import { test } from "node:test";
import assert from "node:assert/strict";
import { LensPositions } from "../lens_positions";

test("lens arguments are shifted in place by edits of their document only", () => {
    const lenses = new LensPositions();
    const adjoint = { uri: "file:///a.jl", position: { line: 4, character: 9 } };
    const gradient = { uri: "file:///a.jl", function: "pow" };
    const other = { uri: "file:///b.jl", position: { line: 4, character: 9 } };
    lenses.track("file:///a.jl", [gradient, adjoint, null, 3]);
    lenses.track("file:///b.jl", [other]);
    // A line inserted at the top of a.jl, then "1" replaced by "2" further down.
    lenses.edit("file:///a.jl", [
        { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: "# edited\n" },
        { range: { start: { line: 9, character: 13 }, end: { line: 9, character: 14 } }, text: "2" },
    ]);
    // The very object VS Code will pass to the command now names line 5.
    assert.deepEqual(adjoint, { uri: "file:///a.jl", position: { line: 5, character: 9 } });
    assert.deepEqual(gradient, { uri: "file:///a.jl", function: "pow" });
    assert.deepEqual(other.position, { line: 4, character: 9 });
});

test("new lenses replace the followed ones; a forgotten document is left alone", () => {
    const lenses = new LensPositions();
    const old = { uri: "u", position: { line: 4, character: 0 } };
    const fresh = { uri: "u", position: { line: 5, character: 0 } };
    lenses.track("u", [old]);
    lenses.track("u", [fresh]);
    const insert = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: "\n" };
    lenses.edit("u", [insert]);
    assert.deepEqual([old.position.line, fresh.position.line], [4, 6]);
    lenses.forget("u");
    lenses.edit("u", [insert]);
    assert.equal(fresh.position.line, 6);
});
