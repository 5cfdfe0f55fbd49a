import { test } from "node:test";
import assert from "node:assert/strict";
import { formatGradient, gradientArgsAt, LensLike, parseGradientResult, viewArgs } from "../args";

const cursor = { uri: "file:///w/pow.jl", position: { line: 7, character: 4 } };

test("a lens's argument object wins over the cursor", () => {
    const arg = { uri: "file:///w/a.jl", position: { line: 4, character: 9 } };
    assert.deepEqual(viewArgs(arg, cursor), arg);
});

test("no argument (command palette): the cursor", () => {
    assert.deepEqual(viewArgs(undefined, cursor), { uri: "file:///w/pow.jl", position: { line: 7, character: 4 } });
});

test("no argument and no editor: a message", () => {
    assert.equal(viewArgs(undefined, undefined), "open a Julia file and put the cursor inside a function");
});

test("malformed lens arguments are rejected with what was sent", () => {
    assert.equal(
        viewArgs({ uri: "file:///a.jl", position: { line: -1, character: 0 } }, cursor),
        'expected { uri, position } as the argument, got {"uri":"file:///a.jl","position":{"line":-1,"character":0}}',
    );
    assert.equal(viewArgs([1, 2], cursor), "expected { uri, position } as the argument, got [1,2]");
    assert.equal(
        viewArgs({ uri: 3, position: { line: 0, character: 0 } }, cursor),
        'expected { uri, position } as the argument, got {"uri":3,"position":{"line":0,"character":0}}',
    );
});

function lens(line: number, command: string, fn: string): LensLike {
    return {
        range: { start: { line, character: 0 } },
        command: { command, arguments: [{ uri: "file:///w/f.jl", function: fn }] },
    };
}

test("gradient arguments come from the nearest gradient lens at or above the cursor", () => {
    const lenses = [
        lens(2, "zy.computeGradient", "f"),
        lens(2, "zy.showAdjointIr", "f"),
        lens(10, "zy.computeGradient", "g"),
        lens(20, "zy.computeGradient", "h"),
    ];
    assert.deepEqual(gradientArgsAt(lenses, 2), { uri: "file:///w/f.jl", function: "f" });
    assert.deepEqual(gradientArgsAt(lenses, 9), { uri: "file:///w/f.jl", function: "f" });
    assert.deepEqual(gradientArgsAt(lenses, 15), { uri: "file:///w/f.jl", function: "g" });
    assert.deepEqual(gradientArgsAt(lenses, 99), { uri: "file:///w/f.jl", function: "h" });
    // Order of the lenses does not matter.
    assert.deepEqual(gradientArgsAt([...lenses].reverse(), 15), { uri: "file:///w/f.jl", function: "g" });
});

test("no gradient lens above the cursor: a message", () => {
    const lenses = [lens(10, "zy.computeGradient", "g"), lens(0, "zy.showSsa", "g")];
    assert.equal(gradientArgsAt(lenses, 3), "no function with a gradient lens at or above the cursor");
    assert.equal(gradientArgsAt([], 3), "no function with a gradient lens at or above the cursor");
});

test("gradient results are checked and formatted", () => {
    const r = parseGradientResult({ call: "pow(2.0, 3)", value: "8.0", gradient: "(12.0, nothing)", micros: 42 });
    assert.deepEqual(r, { call: "pow(2.0, 3)", value: "8.0", gradient: "(12.0, nothing)", micros: 42 });
    assert.equal(typeof r === "string" ? r : formatGradient(r), "pow(2.0, 3) = 8.0, ∇ = (12.0, nothing) (42 µs)");
    assert.equal(
        formatGradient({ call: "f(1.0)", value: "2.0", gradient: "(3.0,)", micros: 2500 }),
        "f(1.0) = 2.0, ∇ = (3.0,) (2.5 ms)",
    );
    assert.equal(
        parseGradientResult({ call: "f(1.0)", value: 2 }),
        'unexpected result from zy.computeGradient: {"call":"f(1.0)","value":2}',
    );
    assert.equal(parseGradientResult(null), "unexpected result from zy.computeGradient: null");
});

test("a non-finite gradient's origin is kept and shown", () => {
    const nonfinite = "/w/a.jl:7:17: the derivative of `sqrt(x^2)` at sqrt(0.0) is not finite: /(1.0, 0.0) = Inf";
    const r = parseGradientResult({ call: "f(0.0)", value: "0.0", gradient: "(NaN,)", micros: 42, nonfinite });
    assert.deepEqual(r, { call: "f(0.0)", value: "0.0", gradient: "(NaN,)", micros: 42, nonfinite });
    assert.equal(
        typeof r === "string" ? r : formatGradient(r),
        `f(0.0) = 0.0, ∇ = (NaN,) (42 µs); not finite: ${nonfinite}`,
    );
    assert.equal(
        parseGradientResult({ call: "f(0.0)", value: "0.0", gradient: "(NaN,)", micros: 42, nonfinite: 3 }),
        'unexpected result from zy.computeGradient: {"call":"f(0.0)","value":"0.0","gradient":"(NaN,)","micros":42,"nonfinite":3}',
    );
});
