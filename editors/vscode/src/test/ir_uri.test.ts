import { test } from "node:test";
import assert from "node:assert/strict";
import { irUriParts, parseIrQuery } from "../ir_uri";

test("an IR URI round-trips its target", () => {
    const target = { source: "file:///w/my%20dir/pow.jl", position: { line: 4, character: 9 }, stage: "adjoint" as const };
    const parts = irUriParts(target, "pow");
    assert.equal(parts.path, "/pow.adjoint.zyir");
    assert.equal(parts.query, "stage=adjoint&uri=file%3A%2F%2F%2Fw%2Fmy%2520dir%2Fpow.jl&line=4&character=9");
    assert.deepEqual(parseIrQuery(parts.query), target);
});

test("labels are made safe for a path", () => {
    assert.equal(irUriParts({ source: "s", position: { line: 0, character: 0 }, stage: "typed" }, "a/b c?").path, "/a_b_c_.typed.zyir");
    assert.equal(irUriParts({ source: "s", position: { line: 0, character: 0 }, stage: "clif" }, "∇f!").path, "/_f!.clif.zyir");
    assert.equal(irUriParts({ source: "s", position: { line: 0, character: 0 }, stage: "clif" }, "").path, "/ir.clif.zyir");
});

test("malformed queries say what is wrong", () => {
    assert.equal(parseIrQuery("stage=nope&uri=x&line=1&character=2"), 'unknown IR stage "nope"');
    assert.equal(parseIrQuery("uri=x&line=1&character=2"), "unknown IR stage null");
    assert.equal(parseIrQuery("stage=typed&line=1&character=2"), "the IR view names no source document");
    assert.equal(parseIrQuery("stage=typed&uri=x&line=-1&character=2"), "the IR view names no valid position");
    assert.equal(parseIrQuery("stage=typed&uri=x&line=1.5&character=2"), "the IR view names no valid position");
    assert.equal(parseIrQuery("stage=typed&uri=x&line=1"), "the IR view names no valid position");
});

test("a file-and-line label keeps its colon", () => {
    assert.equal(irUriParts({ source: "s", position: { line: 4, character: 0 }, stage: "typed" }, "pow.jl:5").path, "/pow.jl:5.typed.zyir");
});
